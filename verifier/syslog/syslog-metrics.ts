import { Counter, Gauge, type Registry } from 'prom-client';

/** Why a HookOS syslog message was lost: the `reason` label of fleet_syslog_dropped_total. */
export const DROP_REASONS = {
  'receive-buffer': 'the kernel dropped it on the socket before it was read (counted from /proc/net/udp)',
  'queue-full': 'journald was slower than the senders and the queue was full',
  'journal-refused': 'journald refused the entry',
  shutdown: 'it was still queued when the receiver stopped',
  empty: 'the datagram was empty',
} as const;
export type DropReason = keyof typeof DROP_REASONS;

type Source = { kernelDrops(): number; queuedBytes(): number };

/**
 * The HookOS syslog receiver's counters, on the registry of whoever runs it: fleetd's, or
 * `fleet syslog`'s own, which then carries nothing of fleetd's (no attestation counter at 0, no
 * certificate gauge an alert would read as expired).
 */
export class SyslogMetrics {
  readonly received: Counter;
  readonly written: Counter;
  readonly malformed: Counter<'anomaly'>;
  readonly dropped: Counter<'reason'>;
  readonly queueBytes: Gauge;
  private source: Source | undefined;
  private kernelDropsCounted = 0;

  constructor(registry: Registry) {
    const registers = [registry];
    this.received = new Counter({ name: 'fleet_syslog_received_total', help: 'HookOS syslog datagrams received', registers });
    this.written = new Counter({ name: 'fleet_syslog_written_total', help: 'HookOS syslog messages journald took', registers });
    this.malformed = new Counter({
      name: 'fleet_syslog_malformed_total',
      help: 'HookOS syslog messages written whole though they broke their format, by how',
      labelNames: ['anomaly'],
      registers,
    });
    const dropped = new Counter({
      name: 'fleet_syslog_dropped_total',
      help: 'HookOS syslog messages lost, by reason (receive-buffer: by the kernel, before fleetd read them)',
      labelNames: ['reason'] as const,
      registers,
      // The kernel keeps its own count: read when scraped.
      collect: () => {
        const drops = this.source?.kernelDrops() ?? 0;
        if (drops > this.kernelDropsCounted) dropped.inc({ reason: 'receive-buffer' }, drops - this.kernelDropsCounted);
        this.kernelDropsCounted = Math.max(drops, this.kernelDropsCounted);
      },
    });
    this.dropped = dropped;
    const queueBytes = new Gauge({
      name: 'fleet_syslog_queue_bytes',
      help: 'HookOS syslog entries waiting for journald, in bytes',
      registers,
      collect: () => {
        queueBytes.set(this.source?.queuedBytes() ?? 0);
      },
    });
    this.queueBytes = queueBytes;
  }

  /** A message lost, for one of the reasons DROP_REASONS names. */
  drop(reason: DropReason): void {
    this.dropped.inc({ reason });
  }

  /** The receiver's kernel drop count and queue, read when scraped. */
  watch(source: Source): void {
    this.source = source;
  }
}

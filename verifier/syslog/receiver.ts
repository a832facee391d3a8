/**
 * The HookOS syslog receiver in fleetd: UDP datagrams (RFC 3164, RFC 5424, busybox `syslogd -R`)
 * in, one journal entry each out, under SYSLOG_IDENTIFIER=hookos with the sender's address. The
 * socket reads into a large receive buffer and never waits for journald: the bounded queue between
 * them absorbs bursts and drops (counted) what does not fit.
 */
import { createSocket } from 'node:dgram';
import { FleetError, errorMessage } from '../../shared/errors.js';
import type { Audit } from '../audit.js';
import type { ListenAddress } from '../http/listen-address.js';
import type { SyslogMetrics } from './syslog-metrics.js';
import { MAX_MESSAGE_BYTES, hookosEntry } from './hookos-entry.js';
import { JournalQueue } from './journal-queue.js';
import type { JournalSink } from './journal-socket.js';
import { readUdpDrops } from './kernel-drops.js';
import { parseSyslog } from './parse.js';
import { peerAddress } from '../../shared/net/peer-address.js';

export interface SyslogReceiverOptions {
  listen: ListenAddress;
  journal: JournalSink;
  metrics: SyslogMetrics;
  audit: Audit;
  /**
   * SO_RCVBUF asked for (default 8 MiB; Linux's default holds ~256 datagrams). The kernel caps it
   * at net.core.rmem_max and doubles it for its bookkeeping: `recvBufferBytes` says what it got.
   */
  recvBufferBytes?: number;
  /** The queue for journald (default 16 MiB, ~50,000 typical entries). */
  maxQueueBytes?: number;
  maxMessageBytes?: number;
}

export interface SyslogReceiver {
  port: number;
  recvBufferBytes: number;
  /** Resolves once every entry queued so far is written or dropped. */
  idle(): Promise<void>;
  /** Datagrams the kernel dropped for this socket (its receive buffer was full). */
  kernelDrops(): number;
  /** Stops receiving, gives journald up to `graceMs` for the queue, and closes the journal socket. */
  close(graceMs?: number): Promise<void>;
}

export async function startSyslogReceiver(opts: SyslogReceiverOptions): Promise<SyslogReceiver> {
  const { metrics, listen } = opts;
  const maxMessageBytes = opts.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  const queue = new JournalQueue(opts.journal, {
    maxBytes: opts.maxQueueBytes ?? 16 * 1024 * 1024,
    onWritten: () => metrics.written.inc(),
    onDropped: (reason) => metrics.drop(reason),
  });
  // On `::` the socket is dual-stack: IPv4 senders arrive as ::ffff:a.b.c.d.
  const socket = createSocket({ type: listen.host.includes(':') ? 'udp6' : 'udp4', recvBufferSize: opts.recvBufferBytes ?? 8 * 1024 * 1024 });
  socket.on('message', (datagram, from) => {
    metrics.received.inc();
    if (datagram.length === 0) {
      metrics.drop('empty');
      return;
    }
    const msg = parseSyslog(datagram);
    for (const anomaly of msg.anomalies) metrics.malformed.inc({ anomaly });
    queue.push(hookosEntry(msg, peerAddress(from.address), maxMessageBytes));
  });
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(listen.port, listen.host, () => {
        socket.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    socket.close();
    await queue.close(0);
    throw listenError(listen, err);
  }
  socket.on('error', (err) => opts.audit('syslog.error', { reason: err.message }));
  const port = socket.address().port;
  const kernelDrops = () => readUdpDrops(port);
  metrics.watch({ kernelDrops, queuedBytes: () => queue.bytes });
  const recvBufferBytes = socket.getRecvBufferSize();
  opts.audit('syslog.listening', { host: listen.host, port, recvBufferBytes });
  return {
    port,
    recvBufferBytes,
    idle: () => queue.idle(),
    kernelDrops,
    async close(graceMs?: number) {
      await new Promise<void>((resolve) => socket.close(() => resolve()));
      await queue.close(graceMs);
    },
  };
}

function listenError(listen: ListenAddress, err: unknown): FleetError {
  const code = (err as { code?: string }).code;
  const where = `udp ${listen.host}:${listen.port}`;
  const hint =
    code === 'EACCES'
      ? `: a port below 1024 needs root or CAP_NET_BIND_SERVICE`
      : code === 'EADDRINUSE'
        ? `: another receiver (rsyslog's hookos-syslog?) holds it`
        : '';
  return new FleetError('syslog-listen', `cannot receive syslog on ${where} (${errorMessage(err)})${hint}`);
}

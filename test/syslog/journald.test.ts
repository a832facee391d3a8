/**
 * The must-show: real senders → the receiver → a real (private) systemd-journald, checked with
 * `journalctl -o json`; and the same through `fleet serve --syslog-listen --journal-socket`, and
 * through `fleet syslog` run apart from a `fleet serve --syslog-listen off`.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metrics } from '../../verifier/metrics.js';
import { JournalSocket } from '../../verifier/syslog/journal-socket.js';
import { startSyslogReceiver } from '../../verifier/syslog/receiver.js';
import { freePort } from '../daemon.js';
import { startFleet, startFleetServe } from '../fleet-serve.js';
import { nodesYaml } from '../inventory/nodes-yaml.js';
import { startPrivateJournald, type PrivateJournald } from './journald.js';
import { BUSYBOX_LINES, busyboxRemote, logger } from './senders.js';
import { waitUntil } from './wait.js';

let journald: PrivateJournald;
beforeAll(async () => {
  journald = await startPrivateJournald();
});
afterAll(async () => {
  await journald?.stop();
});

/** Waits until the journal holds `n` entries matching `matches`, and answers them. */
async function journalHolds(n: number, ...matches: string[]): Promise<Array<Record<string, unknown>>> {
  let entries: Array<Record<string, unknown>> = [];
  await waitUntil(
    async () => (entries = await journald.entries(...matches)).length >= n,
    10_000,
    () => `${entries.length} of ${n} entries match ${matches.join(' ')}`,
  );
  return entries;
}

describe('HookOS syslog into a real journald', () => {
  it('logger --rfc3164, --rfc5424 and busybox syslogd -R arrive with MESSAGE, PRIORITY, SYSLOG_IDENTIFIER, HOOKOS_HOST, HOOKOS_PROGRAM', async () => {
    const receiver = await startSyslogReceiver({
      listen: { host: '127.0.0.1', port: 0 },
      journal: JournalSocket.open(journald.socketPath),
      metrics: new Metrics().syslog,
      audit: () => undefined,
    });
    const query = ['-t', 'hookos', 'HOOKOS_HOST=127.0.0.1'];
    let entries: Array<Record<string, unknown>>;
    try {
      await logger('127.0.0.1', receiver.port, ['--rfc3164', '-t', 'wipe-disk', '-p', 'daemon.err'], 'cannot open /dev/sda');
      await logger('127.0.0.1', receiver.port, ['--rfc5424', '-t', 'tink-worker', '-p', 'local0.info', '--msgid', 'ACTION'], 'step two\nof three');
      await journalHolds(2, ...query);
      await busyboxRemote(receiver.port, async () => void (await journalHolds(2 + BUSYBOX_LINES.length, ...query)));
      entries = await journald.entries(...query);
    } finally {
      await receiver.close();
    }
    const fields = ['MESSAGE', 'PRIORITY', 'SYSLOG_FACILITY', 'SYSLOG_IDENTIFIER', 'HOOKOS_HOST', 'HOOKOS_PROGRAM'];
    const view = (e: Record<string, unknown>) => Object.fromEntries(fields.map((f) => [f, e[f]]));
    const want = (MESSAGE: string, PRIORITY: number, SYSLOG_FACILITY: number, HOOKOS_PROGRAM: string) => ({
      MESSAGE,
      PRIORITY: String(PRIORITY),
      SYSLOG_FACILITY: String(SYSLOG_FACILITY),
      SYSLOG_IDENTIFIER: 'hookos',
      HOOKOS_HOST: '127.0.0.1',
      HOOKOS_PROGRAM,
    });
    expect(entries.map(view)).toEqual([
      want('cannot open /dev/sda', 3, 3, 'wipe-disk'),
      want('step two\nof three', 6, 16, 'tink-worker'),
      ...BUSYBOX_LINES.map((l) => want(l.message, l.severity, l.facility, l.program)),
    ]);
    expect(entries[1]).toMatchObject({ HOOKOS_MSGID: 'ACTION', _TRANSPORT: 'journal' });
  });

  it('fleet serve --syslog-listen --journal-socket: the entries, the audit line, and the counters in /metrics', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fleet-serve-syslog-'));
    await writeFile(join(dir, 'nodes.yaml'), nodesYaml([]));
    const fleetd = await startFleetServe([
      '--nodes',
      join(dir, 'nodes.yaml'),
      '--state',
      join(dir, 'state'),
      '--listen',
      '127.0.0.1:0',
      '--syslog-listen',
      '127.0.0.1:0',
      '--journal-socket',
      journald.socketPath,
    ]);
    const { url, lines } = fleetd;
    try {
      const listening = lines.map((l) => (l.startsWith('{') ? (JSON.parse(l) as Record<string, unknown>) : {})).find((a) => a.audit === 'syslog.listening')!;
      expect(listening).toMatchObject({ host: '127.0.0.1', port: expect.any(Number), recvBufferBytes: expect.any(Number) });

      await logger('127.0.0.1', listening.port as number, ['--rfc3164', '-t', 'serve-check'], 'through fleet serve');
      const [entry] = await journalHolds(1, 'HOOKOS_PROGRAM=serve-check');
      expect(entry).toMatchObject({ MESSAGE: 'through fleet serve', SYSLOG_IDENTIFIER: 'hookos', HOOKOS_HOST: '127.0.0.1' });
      const metrics = await (await fetch(`${url}/metrics`)).text();
      expect(metrics).toMatch(/^fleet_syslog_received_total 1$/m);
      expect(metrics).toMatch(/^fleet_syslog_written_total 1$/m);
      expect(metrics).toMatch(/^fleet_syslog_queue_bytes 0$/m);
      expect(await fleetd.stop()).toBe(0);
    } finally {
      await fleetd.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("fleet syslog apart from fleet serve --syslog-listen off: the entries, and only the receiver's counters on its own /metrics", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fleet-syslog-apart-'));
    await writeFile(join(dir, 'nodes.yaml'), nodesYaml([]));
    const metricsPort = await freePort();
    const receiver = await startFleet(
      'syslog',
      ['--listen', '127.0.0.1:0', '--journal-socket', journald.socketPath, '--metrics-listen', `127.0.0.1:${metricsPort}`],
      /receiving on udp port (\d+)/,
    );
    const fleetd = await startFleetServe([
      '--nodes',
      join(dir, 'nodes.yaml'),
      '--state',
      join(dir, 'state'),
      '--listen',
      '127.0.0.1:0',
      '--syslog-listen',
      'off',
    ]);
    try {
      const audits = (p: { stdout: string[] }) => p.stdout.filter((l) => l.startsWith('{')).map((l) => (JSON.parse(l) as { audit: string }).audit);
      expect(audits(fleetd)).not.toContain('syslog.listening');
      expect(audits(receiver)).toContain('syslog.listening');

      await logger('127.0.0.1', Number(receiver.said), ['--rfc3164', '-t', 'apart-check'], 'through fleet syslog');
      const [entry] = await journalHolds(1, 'HOOKOS_PROGRAM=apart-check');
      expect(entry).toMatchObject({ MESSAGE: 'through fleet syslog', SYSLOG_IDENTIFIER: 'hookos', HOOKOS_HOST: '127.0.0.1' });
      const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect(metrics).toMatch(/^fleet_syslog_received_total 1$/m);
      expect(metrics).toMatch(/^fleet_syslog_written_total 1$/m);
      // Nothing of fleetd's: an alert on an expired certificate or a missing config never reads this job.
      expect(metrics).not.toMatch(/^fleet_(attest|enrollment|install|reconcile)_/m);
      expect(await receiver.stop()).toBe(0);
      expect(await fleetd.stop()).toBe(0);
    } finally {
      await receiver.stop();
      await fleetd.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

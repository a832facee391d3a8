/**
 * The receiver over a real UDP socket, fed by real senders (Docker's syslog driver, logger,
 * busybox syslogd -R, a flood),
 * writing to a journald stand-in (the private journald is journald.test.ts's).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FleetError } from '../../shared/errors.js';
import { udpDrops } from '../../verifier/syslog/kernel-drops.js';
import { JournalSocket } from '../../verifier/syslog/journal-socket.js';
import { startSyslogReceiver, type SyslogReceiverOptions } from '../../verifier/syslog/receiver.js';
import { Metrics } from '../../verifier/metrics.js';
import { fakeJournal } from './fake-journal.js';
import { DockerEngine } from '../docker/engine.js';
import { BUSYBOX_LINES, busyboxRemote, logger } from './senders.js';
import { waitUntil } from './wait.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

/** A receiver on `host`, writing to the journal socket at `journalPath`, with its own metrics and audit. */
async function receiverOn(journalPath: string, host = '127.0.0.1', opts: Partial<SyslogReceiverOptions> = {}) {
  const metrics = new Metrics();
  const audits: Array<[string, Record<string, unknown>]> = [];
  const receiver = await startSyslogReceiver({
    listen: { host, port: 0 },
    journal: JournalSocket.open(journalPath),
    metrics: metrics.syslog,
    audit: (e, f) => audits.push([e, f]),
    ...opts,
  });
  cleanups.push(() => receiver.close());
  return { metrics, receiver, audits };
}

/** A receiver writing to a fake journald that takes everything. */
async function rig(host = '127.0.0.1', opts: Partial<SyslogReceiverOptions> = {}) {
  const journal = fakeJournal();
  cleanups.push(() => journal.close());
  return { journal, ...(await receiverOn(journal.path, host, opts)) };
}

async function counter(metrics: Metrics, name: string): Promise<Record<string, number>> {
  const m = (await metrics.registry.getMetricsAsJSON()).find((x) => x.name === name)!;
  return Object.fromEntries(m.values.map((v) => [Object.values(v.labels).join(',') || '', v.value]));
}

describe('the syslog receiver', () => {
  it("logger --rfc3164 and --rfc5424 over UDP: one entry each, with the sender's address", async () => {
    const { journal, receiver, metrics, audits } = await rig();
    await logger('127.0.0.1', receiver.port, ['--rfc3164', '-t', 'wipe-disk', '-p', 'daemon.err', '--id=812'], 'cannot open /dev/sda');
    await logger(
      '127.0.0.1',
      receiver.port,
      ['--rfc5424', '-t', 'tink-worker', '-p', 'local0.info', '--msgid', 'ACTION', '--sd-id', 'fleet@32473', '--sd-param', 'step="2"'],
      'step done',
    );
    await journal.waitFor(2);
    const [a, b] = journal.entries;
    expect(a).toMatchObject({
      MESSAGE: 'cannot open /dev/sda',
      PRIORITY: '3',
      SYSLOG_FACILITY: '3',
      SYSLOG_IDENTIFIER: 'hookos',
      HOOKOS_HOST: '127.0.0.1',
      HOOKOS_PROGRAM: 'wipe-disk',
      HOOKOS_PID: '812',
    });
    expect(a!.HOOKOS_HOSTNAME).toBeTruthy();
    expect(a!.SYSLOG_TIMESTAMP).toMatch(/^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d$/);
    expect(b).toMatchObject({
      MESSAGE: 'step done',
      PRIORITY: '6',
      SYSLOG_FACILITY: '16',
      HOOKOS_HOST: '127.0.0.1',
      HOOKOS_PROGRAM: 'tink-worker',
      HOOKOS_MSGID: 'ACTION',
    });
    expect(b!.HOOKOS_STRUCTURED_DATA).toContain('[fleet@32473 step="2"]');
    expect(b!.SYSLOG_TIMESTAMP).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(a!.HOOKOS_SYSLOG_ANOMALY ?? b!.HOOKOS_SYSLOG_ANOMALY).toBeUndefined();
    await receiver.idle();
    expect(await counter(metrics, 'fleet_syslog_received_total')).toEqual({ '': 2 });
    expect(await counter(metrics, 'fleet_syslog_written_total')).toEqual({ '': 2 });
    expect(audits).toContainEqual(['syslog.listening', expect.objectContaining({ port: receiver.port, recvBufferBytes: receiver.recvBufferBytes })]);
  });

  it("Docker's own syslog log driver, the sender HookOS uses for every container: one entry per line, under the container's tag", async () => {
    const engine = await DockerEngine.start();
    cleanups.push(() => engine.stop());
    await engine.importPrograms('fleet-test/sender:1', ['/usr/bin/busybox']);
    const { journal, receiver } = await rig();
    // What HookOS's Docker does with an action's output (syslog_host on the kernel command line).
    await engine.docker([
      'run',
      '--rm',
      '--network',
      'none',
      '--log-driver',
      'syslog',
      '--log-opt',
      `syslog-address=udp://127.0.0.1:${receiver.port}`,
      '--log-opt',
      'syslog-format=rfc3164',
      '--log-opt',
      'tag=wipe-disk',
      'fleet-test/sender:1',
      '/usr/bin/busybox',
      'sh',
      '-c',
      'echo "wipe: /dev/nvme0n1 reports the serial S4EV"; echo "wipe: no install code" >&2',
    ]);
    await journal.waitFor(2);
    expect(journal.entries.map((e) => e.MESSAGE).sort()).toEqual(['wipe: /dev/nvme0n1 reports the serial S4EV', 'wipe: no install code']);
    for (const e of journal.entries) {
      // daemon.info for stdout, daemon.err for stderr, as Docker's driver sends them
      expect(e).toMatchObject({ SYSLOG_IDENTIFIER: 'hookos', HOOKOS_HOST: '127.0.0.1', HOOKOS_PROGRAM: 'wipe-disk', SYSLOG_FACILITY: '3' });
      expect(e.HOOKOS_PID).toMatch(/^\d+$/);
      expect(e.HOOKOS_SYSLOG_ANOMALY).toBeUndefined();
    }
    expect(journal.entries.map((e) => e.PRIORITY).sort()).toEqual(['3', '6']);
  }, 120_000);

  it('busybox syslogd -R (no host name, a newline at the end)', async () => {
    const { journal, receiver } = await rig();
    await busyboxRemote(receiver.port, () => journal.waitFor(BUSYBOX_LINES.length));
    expect(
      journal.entries.map((e) => ({ program: e.HOOKOS_PROGRAM, severity: Number(e.PRIORITY), facility: Number(e.SYSLOG_FACILITY), message: e.MESSAGE })),
    ).toEqual(BUSYBOX_LINES);
    for (const e of journal.entries) {
      expect(e.HOOKOS_HOSTNAME).toBeUndefined();
      expect(e.HOOKOS_HOST).toBe('127.0.0.1');
    }
  });

  it('IPv6, and IPv4 on a dual-stack socket, as the plain address', async () => {
    const v6 = await rig('::1');
    await logger('::1', v6.receiver.port, ['--rfc5424'], 'over v6');
    await v6.journal.waitFor(1);
    expect(v6.journal.entries[0]).toMatchObject({ MESSAGE: 'over v6', HOOKOS_HOST: '::1' });

    const dual = await rig('::');
    await logger('127.0.0.1', dual.receiver.port, ['--rfc3164'], 'over v4');
    await dual.journal.waitFor(1);
    expect(dual.journal.entries[0]).toMatchObject({ MESSAGE: 'over v4', HOOKOS_HOST: '127.0.0.1' });
  });

  it('counts an empty datagram as dropped and a malformed one by what was wrong, and writes the malformed one', async () => {
    const { journal, receiver, metrics } = await rig();
    await sendRaw(receiver.port, ['', 'no pri at all', '<999>bad pri']);
    await journal.waitFor(2);
    expect(journal.entries.map((e) => e.MESSAGE)).toEqual(['no pri at all', '<999>bad pri']);
    expect(await counter(metrics, 'fleet_syslog_received_total')).toEqual({ '': 3 });
    expect(await counter(metrics, 'fleet_syslog_dropped_total')).toEqual({ empty: 1 });
    expect(await counter(metrics, 'fleet_syslog_malformed_total')).toEqual({ 'no-pri': 1, 'no-timestamp': 1, 'bad-pri': 1 });
  });

  it('journald stalls: the receiver keeps reading, queues, and delivers everything once journald reads', async () => {
    const { path, release, slow } = await slowJournal();
    const { metrics, receiver } = await receiverOn(path);
    const n = 2000;
    await sendRaw(
      receiver.port,
      Array.from({ length: n }, (_, i) => `<13>Nov 30 07:43:45 h p: ${i}`),
    );
    const received = async () => (await counter(metrics, 'fleet_syslog_received_total'))['']!;
    const written = async () => (await counter(metrics, 'fleet_syslog_written_total'))[''] ?? 0;
    await waitUntil(
      async () => (await received()) === n,
      10_000,
      () => 'the receiver did not read every datagram while journald stalled',
    );
    // All read while journald reads nothing: what its socket's queue could not take waits in ours.
    expect(await written()).toBeLessThan(n / 2);
    release();
    await receiver.idle();
    expect(await written()).toBe(n);
    expect(Number((await slow).stdout)).toBe(n);
    expect(await counter(metrics, 'fleet_syslog_dropped_total')).toEqual({});
  });

  it('a full queue drops the newest and counts them; the rest arrive', async () => {
    const { path, release, slow } = await slowJournal();
    const { metrics, receiver } = await receiverOn(path, '127.0.0.1', { maxQueueBytes: 20_000 });
    await sendRaw(
      receiver.port,
      Array.from({ length: 1000 }, (_, i) => `<13>Nov 30 07:43:45 h p: ${i}`),
    );
    const received = async () => (await counter(metrics, 'fleet_syslog_received_total'))['']!;
    await waitUntil(
      async () => (await received()) === 1000,
      10_000,
      () => 'the receiver did not read every datagram',
    );
    release();
    let counts = { written: 0, dropped: 0 };
    await waitUntil(
      async () => {
        counts = {
          written: (await counter(metrics, 'fleet_syslog_written_total'))[''] ?? 0,
          dropped: (await counter(metrics, 'fleet_syslog_dropped_total'))['queue-full'] ?? 0,
        };
        return counts.written + counts.dropped === 1000;
      },
      10_000,
      () => `written ${counts.written} + dropped ${counts.dropped} of 1000`,
    );
    expect(counts.dropped).toBeGreaterThan(0);
    expect(Number((await slow).stdout)).toBe(counts.written);
  });

  it('counts what the kernel dropped from a full receive buffer', async () => {
    const { receiver, metrics, journal } = await rig('127.0.0.1', { recvBufferBytes: 4096 });
    const n = 3000;
    // spawnSync blocks this process, so nothing reads while python floods the socket.
    const flood = spawnSync('python3', ['-c', FLOOD, String(receiver.port), String(n)]);
    expect(flood.status).toBe(0);
    const total = async () => (await counter(metrics, 'fleet_syslog_received_total'))['']! + receiver.kernelDrops();
    await waitUntil(
      () => journal.entries.length > 0,
      5000,
      () => 'nothing arrived',
    );
    const deadline = Date.now() + 5000;
    while ((await total()) < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(receiver.kernelDrops()).toBeGreaterThan(0);
    expect(await total()).toBe(n);
    expect((await counter(metrics, 'fleet_syslog_dropped_total'))['receive-buffer']).toBe(receiver.kernelDrops());
  });

  it('refuses a port it cannot bind, saying which', async () => {
    const { receiver } = await rig();
    const err = await rig('127.0.0.1', { listen: { host: '127.0.0.1', port: receiver.port } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FleetError);
    expect((err as FleetError).code).toBe('syslog-listen');
    expect((err as FleetError).message).toContain(`udp 127.0.0.1:${receiver.port}`);
    expect((err as FleetError).message).toContain('EADDRINUSE');
  });

  it('refuses a journal socket nobody listens on', () => {
    expect(() => JournalSocket.open('/nonexistent/journal.socket')).toThrow(/cannot reach journald at \/nonexistent\/journal.socket \(ENOENT\)/);
  });
});

describe('udpDrops', () => {
  it('sums the drops column of the rows bound to the port', () => {
    const table = `   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops
  100: 0100007F:0202 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 1001 2 0000000000000000 17
  101: 00000000:0203 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 1002 2 0000000000000000 5
`;
    expect(udpDrops(table, 514)).toBe(17);
    expect(udpDrops(table, 515)).toBe(5);
    expect(udpDrops(table, 516)).toBe(0);
  });
});

/**
 * A journald that reads nothing until `release()`, then reads until 1 s of quiet; `slow` gives how
 * much it read.
 */
async function slowJournal(): Promise<{ path: string; release: () => void; slow: Promise<{ stdout: string }> }> {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-slow-journal-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'socket');
  const child = spawn('python3', ['-c', SLOW_READER, path], { stdio: ['pipe', 'pipe', 'inherit'] });
  cleanups.push(() => child.kill('SIGKILL'));
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  const slow = new Promise<{ stdout: string }>((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve({ stdout }) : reject(new Error(`the slow reader exited ${code}`)))),
  );
  await waitUntil(
    () => existsSocket(path),
    5000,
    () => 'the slow reader did not bind',
  );
  return { path, release: () => child.stdin.end('go\n'), slow };
}

const SLOW_READER = `
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
sys.stdin.readline()
s.settimeout(1.0)
n = 0
try:
    while True:
        s.recv(70000)
        n += 1
except socket.timeout:
    pass
print(n)
`;

const FLOOD = `
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(int(sys.argv[2])):
    s.sendto(b'<13>Nov 30 07:43:45 h p: %d' % i, ('127.0.0.1', int(sys.argv[1])))
`;

function existsSocket(path: string): boolean {
  try {
    return statSync(path).isSocket();
  } catch {
    return false;
  }
}

async function sendRaw(port: number, datagrams: string[]): Promise<void> {
  const { createSocket } = await import('node:dgram');
  const socket = createSocket('udp4');
  for (const d of datagrams)
    await new Promise<void>((resolve, reject) => socket.send(Buffer.from(d), port, '127.0.0.1', (err) => (err ? reject(err) : resolve())));
  socket.close();
}

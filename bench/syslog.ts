/**
 * HookOS syslog into a private systemd-journald (test/syslog/journald.ts): a sender thread sends
 * over UDP loopback to the receiver, which writes to journald's native socket. Loss is counted in
 * the journal itself (`journalctl`), not by fleetd's counters: every message carries a sequence
 * number, and the journal's distinct ones are what arrived.
 *
 * - `syslog_lost_at_20k`: 100,000 messages paced at 20,000/s; sent minus what the journal holds.
 * - `syslog_msgs_per_s`: 100,000 messages as fast as one sender sends them; what the journal holds,
 *   per second from the first send until the receiver's queue is empty.
 */
import { Worker } from 'node:worker_threads';
import { Metrics } from '../verifier/metrics.js';
import { JournalSocket } from '../verifier/syslog/journal-socket.js';
import { startSyslogReceiver, type SyslogReceiver } from '../verifier/syslog/receiver.js';
import { startPrivateJournald, type PrivateJournald } from '../test/syslog/journald.js';
import { waitUntil } from '../test/syslog/wait.js';
import type { Figure, Suite } from './run.js';

const COUNT = 100_000;
const RATE = 20_000;

// A worker of its own, so the sender's pace does not depend on the receiver's event loop.
// Each message is about as long as a tink-worker line (~130 bytes).
const SENDER = `
const { parentPort, workerData } = require('node:worker_threads');
const socket = require('node:dgram').createSocket('udp4');
const { port, count, rate, program } = workerData;
const pad = 'x'.repeat(70);
let sent = 0;
const start = performance.now();
function tick() {
  const due = rate ? Math.min(count, Math.floor(((performance.now() - start) * rate) / 1000)) : count;
  const until = Math.min(due, sent + 500);
  for (; sent < until; sent++) {
    const line = '<14>Nov 30 07:43:45 node-bench ' + program + '[1]: seq ' + sent + ' ' + pad;
    // send is asynchronous: close only once the last one is out, or it is lost with the socket.
    if (sent === count - 1) socket.send(line, port, '127.0.0.1', () => socket.close(() => parentPort.postMessage(performance.now() - start)));
    else socket.send(line, port, '127.0.0.1');
  }
  if (sent === count) return;
  if (sent === due) setTimeout(tick, 1);
  else setImmediate(tick);
}
tick();
`;

interface Run {
  sent: number;
  sendMs: number;
  /** From the first send until every datagram was read or dropped and the queue is empty. */
  totalMs: number;
  inJournal: number;
  received: number;
  kernelDrops: number;
  queueDrops: number;
}

async function run(journald: PrivateJournald, program: string, rate: number | undefined): Promise<Run> {
  const metrics = new Metrics();
  const receiver: SyslogReceiver = await startSyslogReceiver({
    listen: { host: '127.0.0.1', port: 0 },
    journal: JournalSocket.open(journald.socketPath),
    metrics: metrics.syslog,
    audit: () => undefined,
  });
  const value = async (c: { get(): Promise<{ values: Array<{ value: number; labels: Record<string, unknown> }> }> }, label?: string) =>
    (await c.get()).values.filter((v) => label === undefined || v.labels.reason === label).reduce((n, v) => n + v.value, 0);
  try {
    const start = performance.now();
    const sendMs = await new Promise<number>((resolve, reject) => {
      const worker = new Worker(SENDER, { eval: true, workerData: { port: receiver.port, count: COUNT, rate, program } });
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    let accounted = 0;
    await waitUntil(
      async () => (accounted = (await value(metrics.syslog.received)) + receiver.kernelDrops()) >= COUNT,
      30_000,
      () => `the receiver accounts for ${accounted} of ${COUNT} datagrams (received plus the kernel's drops)`,
    );
    await receiver.idle();
    const totalMs = performance.now() - start;
    const written = await value(metrics.syslog.written);
    // journald may still be reading what its socket took.
    let inJournal = 0;
    await waitUntil(
      async () => (inJournal = await distinctInJournal(journald, program)) >= written,
      30_000,
      () => `the journal holds ${inJournal} of ${written} written`,
    ).catch(() => undefined);
    return {
      sent: COUNT,
      sendMs,
      totalMs,
      inJournal,
      received: await value(metrics.syslog.received),
      kernelDrops: receiver.kernelDrops(),
      queueDrops: await value(metrics.syslog.dropped, 'queue-full'),
    };
  } finally {
    await receiver.close();
  }
}

async function distinctInJournal(journald: PrivateJournald, program: string): Promise<number> {
  const seqs = new Set<string>();
  for (const line of await journald.messages(`HOOKOS_PROGRAM=${program}`)) seqs.add(line.split(' ')[1]!);
  return seqs.size;
}

function note(r: Run): string {
  return `sent at ${Math.round((r.sent / r.sendMs) * 1000)}/s; received ${r.received}, kernel drops ${r.kernelDrops}, queue drops ${r.queueDrops}, journal holds ${r.inJournal}`;
}

export const suite: Suite = {
  title: 'HookOS syslog into a private journald',
  async run(): Promise<Figure[]> {
    const journald = await startPrivateJournald();
    try {
      const paced = await run(journald, 'bench-paced', RATE);
      const flat = await run(journald, 'bench-flat', undefined);
      return [
        { name: 'syslog_lost_at_20k', value: paced.sent - paced.inJournal, unit: 'messages', goal: '0', note: `of ${paced.sent}: ${note(paced)}` },
        {
          name: 'syslog_msgs_per_s',
          value: (flat.inJournal / flat.totalMs) * 1000,
          unit: 'msg/s',
          note: `${flat.inJournal} in ${(flat.totalMs / 1000).toFixed(2)} s, one sender unpaced: ${note(flat)}`,
        },
      ];
    } finally {
      await journald.stop();
    }
  },
};

/**
 * `fleet syslog` that cannot start: it ends at once with its reason, leaving nothing bound. Every
 * part it started before the failing one is stopped (verifier/parts.ts), so the process exits
 * rather than living on with an open socket.
 */
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { fleetCli } from '../fleet-cli.js';
import { fakeJournal } from './fake-journal.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

function journal(): string {
  const j = fakeJournal();
  cleanups.push(() => j.close());
  return j.path;
}

describe('fleet syslog', () => {
  it('a UDP port another receiver holds ends it with exit 1 and the reason', async () => {
    const holder = createSocket('udp4');
    await new Promise<void>((r) => holder.bind(0, '127.0.0.1', r));
    cleanups.push(() => holder.close());
    const run = await fleetCli('syslog', '--listen', `127.0.0.1:${holder.address().port}`, '--journal-socket', journal());
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/another receiver \(rsyslog's hookos-syslog\?\) holds it \[syslog-listen\]/);
  });

  it('a metrics port that cannot be bound stops the receiver it started first, and the command exits 1', async () => {
    const holder = createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', r));
    cleanups.push(() => new Promise((r) => holder.close(r)));
    const port = (holder.address() as { port: number }).port;
    const run = await fleetCli('syslog', '--listen', '127.0.0.1:0', '--journal-socket', journal(), '--metrics-listen', `127.0.0.1:${port}`);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/EADDRINUSE/);
    // The receiver had started: its audit line is out, and the process still exited.
    expect(run.stdout).toMatch(/"audit":"syslog.listening"/);
  });

  it('plain HTTP metrics off loopback are refused, and the receiver stopped', async () => {
    const run = await fleetCli('syslog', '--listen', '127.0.0.1:0', '--journal-socket', journal(), '--metrics-listen', '0.0.0.0:9514');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/refusing plain HTTP on 0\.0\.0\.0: .*\[insecure-listen\]/);
  });

  it('--help lists its options', async () => {
    const run = await fleetCli('syslog', '--help');
    expect(run.code).toBe(0);
    for (const flag of ['--listen HOST:PORT', '--journal-socket PATH', '--metrics-listen HOST:PORT']) expect(run.stdout).toContain(flag);
  });
});

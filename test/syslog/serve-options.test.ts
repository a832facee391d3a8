/** fleet serve's syslog switch: on by default, off on request, and a default that cannot start does not stop fleetd. */
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Metrics } from '../../verifier/metrics.js';
import { startSyslog } from '../../verifier/syslog/serve-options.js';
import { fakeJournal } from './fake-journal.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

function missingSocket(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-no-journal-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'socket');
}

function journal(): string {
  const j = fakeJournal();
  cleanups.push(() => j.close());
  return j.path;
}

/** A UDP port some other receiver holds. */
async function heldPort(): Promise<number> {
  const holder = createSocket('udp4');
  await new Promise<void>((r) => holder.bind(0, '127.0.0.1', r));
  cleanups.push(() => holder.close());
  return holder.address().port;
}

async function start(o: Record<string, string>, defaults: { listen: string; journalSocket: string }) {
  const audits: Array<[string, Record<string, unknown>]> = [];
  const warnings: string[] = [];
  const receiver = await startSyslog(
    o,
    new Metrics(),
    (e, f) => audits.push([e, f]),
    (l) => warnings.push(l),
    defaults,
  );
  if (receiver) cleanups.push(() => receiver.close());
  return { receiver, audits, warnings };
}

describe('fleet serve --syslog-listen', () => {
  it('starts the receiver on the default address when nothing is said', async () => {
    const { receiver, warnings } = await start({}, { listen: '127.0.0.1:0', journalSocket: journal() });
    expect(receiver?.port).toBeGreaterThan(0);
    expect(warnings).toEqual([]);
  });

  it('off: no receiver, whatever the defaults', async () => {
    const { receiver, warnings } = await start({ 'syslog-listen': 'off' }, { listen: '127.0.0.1:0', journalSocket: missingSocket() });
    expect(receiver).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it('a default that cannot start (no journald) is a warning and an audit line, and fleetd goes on', async () => {
    const socket = missingSocket();
    const { receiver, warnings, audits } = await start({}, { listen: '127.0.0.1:0', journalSocket: socket });
    expect(receiver).toBeUndefined();
    expect(warnings).toEqual([
      expect.stringMatching(
        new RegExp(`^fleetd: no HookOS syslog receiver: cannot reach journald at ${socket} .*give --syslog-listen HOST:PORT \\(or off\\)$`),
      ),
    ]);
    expect(audits).toEqual([['syslog.error', { reason: expect.stringContaining('cannot reach journald') }]]);
  });

  it('a default port another receiver holds is a warning too', async () => {
    const { receiver, warnings } = await start({}, { listen: `127.0.0.1:${await heldPort()}`, journalSocket: journal() });
    expect(receiver).toBeUndefined();
    expect(warnings[0]).toMatch(/another receiver \(rsyslog's hookos-syslog\?\) holds it/);
  });

  it('an address given by name must start, or fleet serve fails', async () => {
    const defaults = { listen: '127.0.0.1:0', journalSocket: journal() };
    await expect(start({ 'syslog-listen': `127.0.0.1:${await heldPort()}` }, defaults)).rejects.toMatchObject({ code: 'syslog-listen' });
    await expect(start({ 'journal-socket': missingSocket() }, defaults)).rejects.toMatchObject({ code: 'journal-unreachable' });
  });
});

/** fleet serve's syslog receiver: on by default, off on request, and a default that cannot start does not stop fleetd. */
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Metrics } from '../../verifier/metrics.js';
import type { SyslogConfig } from '../../verifier/config/serve-config.js';
import { startSyslog } from '../../verifier/syslog/serve-receiver.js';
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

/** The receiver of a config: its defaults (asked: false), or options named on the command line (asked: true). */
async function start(cfg: SyslogConfig) {
  const audits: Array<[string, Record<string, unknown>]> = [];
  const warnings: string[] = [];
  const receiver = await startSyslog(
    cfg,
    new Metrics().syslog,
    (e, f) => audits.push([e, f]),
    (l) => warnings.push(l),
  );
  if (receiver) cleanups.push(() => receiver.close());
  return { receiver, audits, warnings };
}

describe('fleet serve --syslog-listen', () => {
  it('starts the receiver on the default address when nothing is said', async () => {
    const { receiver, warnings } = await start({ listen: '127.0.0.1:0', journalSocket: journal(), asked: false });
    expect(receiver?.port).toBeGreaterThan(0);
    expect(warnings).toEqual([]);
  });

  it('off: no receiver, whatever the defaults', async () => {
    const { receiver, warnings } = await start({ listen: null, journalSocket: missingSocket(), asked: true });
    expect(receiver).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it('a default that cannot start (no journald) is a warning and an audit line, and fleetd goes on', async () => {
    const socket = missingSocket();
    const { receiver, warnings, audits } = await start({ listen: '127.0.0.1:0', journalSocket: socket, asked: false });
    expect(receiver).toBeUndefined();
    expect(warnings).toEqual([
      expect.stringMatching(
        new RegExp(`^fleetd: no HookOS syslog receiver: cannot reach journald at ${socket} .*give --syslog-listen HOST:PORT \\(or off\\)$`),
      ),
    ]);
    expect(audits).toEqual([['syslog.error', { reason: expect.stringContaining('cannot reach journald') }]]);
  });

  it('a default port another receiver holds is a warning too', async () => {
    const { receiver, warnings } = await start({ listen: `127.0.0.1:${await heldPort()}`, journalSocket: journal(), asked: false });
    expect(receiver).toBeUndefined();
    expect(warnings[0]).toMatch(/another receiver \(rsyslog's hookos-syslog\?\) holds it/);
  });

  it('an address given by name must start, or fleet serve fails', async () => {
    await expect(start({ listen: `127.0.0.1:${await heldPort()}`, journalSocket: journal(), asked: true })).rejects.toMatchObject({ code: 'syslog-listen' });
    await expect(start({ listen: '127.0.0.1:0', journalSocket: missingSocket(), asked: true })).rejects.toMatchObject({ code: 'journal-unreachable' });
  });
});

/**
 * The agent's defaults are the lab's: the Tinkerbell page's "up to five times, with 30 seconds
 * between attempts", the runbook's LLDP wait ("within 35 seconds of the attestation") and its
 * `attest: try 5 failed` when fleetd does not answer. The numbers are read from the vendored pages,
 * the options from the edge's own parse with none given, and the tries made by a booted machine's
 * TPM (swtpm) against an address where no fleetd listens.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAttestation } from '../../agent/attest/run.js';
import { edgeSettings } from '../../agent/edge/main.js';
import { bootMachine, type BootedMachine } from '../swtpm/booted-machine.js';
import { rigBoot, BOOT_LOG } from '../swtpm/rig.js';
import { RUNBOOK } from '../runbook/runbook.js';
import { TESTDATA } from '../testdata.js';

const TINKERBELL = readFileSync(`${TESTDATA}runbook/tinkerbell.txt`, 'utf8');
const WORDS: Record<string, number> = { three: 3, four: 4, five: 5, six: 6 };

const [, timesWord = '', apartS = ''] = /up to (\w+) times, with (\d+) seconds between attempts/.exec(TINKERBELL) ?? [];
const [, lldpS = ''] = /within (\d+) seconds of the attestation/.exec(RUNBOOK) ?? [];
const [, lastTry = ''] = /`attest: try (\d+) failed`/.exec(RUNBOOK) ?? [];

let dir: string;
let machine: BootedMachine;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fleet-defaults-'));
  machine = await bootMachine(dir);
}, 120_000);
afterAll(async () => {
  await machine?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A port nothing listens on: one the kernel just gave and took back. */
async function silentPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise((r) => s.close(r));
  return port;
}

describe("the agent's defaults", () => {
  it('are read from the pages', () => {
    expect(WORDS[timesWord]).toBeGreaterThan(0);
    expect(Number(apartS)).toBeGreaterThan(0);
    expect(Number(lldpS)).toBeGreaterThan(0);
    expect(Number(lastTry)).toBe(WORDS[timesWord]);
  });

  it("are the edge's when no option is given: the tries, the wait between them, the LLDP window", () => {
    expect(edgeSettings([])).toMatchObject({ tries: WORDS[timesWord], retryDelayMs: Number(apartS) * 1000, lldpWindowMs: Number(lldpS) * 1000 });
  });

  it('against a fleetd that does not answer: every try fails, the last as the runbook says, the waits between them the page’s', async () => {
    const settings = edgeSettings([])!;
    const lines: string[] = [];
    const waits: number[] = [];
    const outcome = await runAttestation({
      tpm: machine.tpm,
      client: { baseUrl: `http://127.0.0.1:${await silentPort()}` },
      boot: rigBoot('SN-DEFAULTS', new Uint8Array(readFileSync(BOOT_LOG))),
      installCodePath: join(dir, 'worker', 'fleet', 'install_code'),
      say: (l) => lines.push(l),
      tries: settings.tries,
      retryDelayMs: settings.retryDelayMs,
      wait: async (ms) => void waits.push(ms),
    });
    expect(outcome).toEqual({ kind: 'no-verdict', tries: Number(lastTry) });
    expect(lines.filter((l) => l.startsWith('attest: try '))).toHaveLength(Number(lastTry));
    expect(lines.at(-2)).toMatch(new RegExp(`^attest: try ${lastTry} failed: .*ECONNREFUSED`));
    expect(waits).toEqual(Array(Number(lastTry) - 1).fill(Number(apartS) * 1000));
  });
});

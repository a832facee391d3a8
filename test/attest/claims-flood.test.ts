/**
 * Waiting claims against a peer with many addresses: junk claims from 1,001 addresses (four /24s)
 * do not flush a machine's claim from another /24, and when a flood in the machine's own /24
 * sheds it, `fleet attest approve` says so rather than answering as if it never came.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Claim } from '../../verifier/state/claim.js';
import { openDatabase } from '../../verifier/state/database.js';
import { LocalStore } from '../../verifier/state/local-store.js';
import { fleetCli } from '../fleet-cli.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const claim = (serial: string, peer: string, i: number): Claim => ({
  serial,
  peer,
  at: new Date(Date.parse('2026-12-01T00:00:00Z') + i * 1000).toISOString(),
  mac: '52:54:00:12:34:56',
  switchPort: 'Port 5',
  eks: [{ kind: 'rsa2048', hash: i.toString(16).padStart(64, '0'), certificate: null }],
});

async function flooded(machinePeer: string, floodPeer: (i: number) => string, count: number): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), 'fleet-claims-'));
  const state = join(dir, 'state');
  const db = openDatabase(state);
  const store = new LocalStore(db);
  store.recordClaim(claim('SN-MACHINE', machinePeer, 0));
  for (let i = 1; i <= count; i++) store.recordClaim(claim(`SN-JUNK-${i}`, floodPeer(i), i));
  db.close();
  return state;
}

describe('waiting claims under a flood from many addresses', () => {
  it("1,001 addresses' junk claims leave a machine's claim from another /24 for approve", async () => {
    const state = await flooded('10.0.1.11', (i) => `10.2.${Math.floor(i / 254)}.${1 + (i % 254)}`, 1001);
    const run = await fleetCli('attest', 'approve', 'SN-MACHINE', '--state', state);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^claim: serial SN-MACHINE, MAC 52:54:00:12:34:56, switch port Port 5, from 10\.0\.1\.11, at /m);
  });

  it('a flood in the machine’s own /24 that sheds its claim is named by approve: how many, and when', async () => {
    const state = await flooded('10.0.1.11', (i) => `10.0.1.${1 + (i % 250)}`, 250);
    const run = await fleetCli('attest', 'approve', 'SN-MACHINE', '--state', state);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^1 claims of the serial SN-MACHINE were shed to make room for other addresses' claims, the last at 2026-12-01T00:02:08.000Z:/m);
  });
});

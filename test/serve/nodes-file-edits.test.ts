/**
 * The nodes file edited under a running `fleet serve`, as an operator edits it: broken, then
 * emptied (a truncated write), then fixed. Each bad change is refused whole and said at once (an
 * audit line with every problem, the metric the alert watches, /healthz, `fleet status`), while
 * the machine attests from the last good file before, during and after; the fix is served at once.
 * SIGHUP reads the file again and leaves fleetd running; SIGTERM says what it stops, in order.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ATTEST_LINES } from '../../agent/attest/lines.js';
import { ekHashOfCertificate } from '../../shared/ek-cert/ek-certificate.js';
import { fleetCli } from '../fleet-cli.js';
import { type FleetServe, startFleetServe } from '../fleet-serve.js';
import { nodeEntry } from '../node-entry.js';
import { type BootedMachine, bootMachine } from '../swtpm/booted-machine.js';
import { RIG_CATALOGUE, RIG_PORT } from '../swtpm/rig.js';
import { until } from '../until.js';

const SERIAL = 'SN-EDIT-1';
let dir: string;
let nodesPath: string;
let stateDir: string;
let fleetd: FleetServe;
let machine: BootedMachine;
let entry: Record<string, unknown>;

const nodesFile = (nodes: Record<string, unknown>) => stringify({ ...RIG_CATALOGUE, nodes });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fleet-edits-'));
  machine = await bootMachine(dir);
  const p = machine.provisioned;
  entry = nodeEntry({
    serial: SERIAL,
    switch_port: RIG_PORT,
    approved_ek_rsa2048: ekHashOfCertificate(p.ekCertRsaDer),
    approved_ek_eccp256: ekHashOfCertificate(p.ekCertEccDer),
  });
  nodesPath = join(dir, 'nodes.yaml');
  stateDir = join(dir, 'state');
  await writeFile(nodesPath, nodesFile({ 'edit-1': entry }));
  fleetd = await startFleetServe(['--nodes', nodesPath, '--state', stateDir, '--listen', '127.0.0.1:0', '--syslog-listen', 'off']);
}, 120_000);
afterAll(async () => {
  await fleetd?.stop();
  await machine?.close();
  await rm(dir, { recursive: true, force: true });
});

type InventoryAudit = { audit: string; outcome: string; problems?: string[]; kept?: number; nodes?: number };
const inventoryAudits = (): InventoryAudit[] =>
  fleetd.stdout.filter((l) => l.startsWith('{"audit":"fleet.inventory"')).map((l) => JSON.parse(l) as InventoryAudit);

/** The audit line of the `n`th change (1-based), once fleetd wrote it. */
const change = (n: number) => until(`change ${n}'s audit line`, () => inventoryAudits()[n - 1]);

const healthz = async () => (await fetch(`${fleetd.url}/healthz`)).json() as Promise<{ ok: boolean; degraded?: string[] }>;
async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${fleetd.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1]);
}
const attestsFromTheLastGoodFile = async () => expect((await machine.attest(fleetd.url, SERIAL)).at(-1)).toBe(ATTEST_LINES.passed());

describe('the nodes file edited under fleet serve', () => {
  it('broken, then empty, then fixed: each bad change refused and said at once, the machine attested throughout', async () => {
    await attestsFromTheLastGoodFile();

    // Broken: a class no one declared, and a YAML error would do as well.
    await writeFile(nodesPath, nodesFile({ 'edit-1': { ...entry, class: 'wroker' } }));
    const broken = await change(1);
    expect(broken).toMatchObject({ outcome: 'refused', kept: 1, problems: ['edit-1: unknown class wroker'] });
    const health = await healthz();
    expect(health.ok).toBe(true);
    expect(health.degraded).toEqual([
      expect.stringMatching(
        /^the nodes file .*nodes\.yaml changed at .* and was refused \(edit-1: unknown class wroker\): fleetd serves the 1 node\(s\) it read at /,
      ),
    ]);
    expect(await metric('fleet_inventory_change_refused')).toBe(1);
    expect(await metric('fleet_inventory_changes_total{outcome="refused"}')).toBe(1);
    const status = await fleetCli('status', '--nodes', nodesPath, '--state', stateDir);
    expect(status.code).not.toBe(0);
    expect(status.stderr).toContain('edit-1: unknown class wroker');
    expect(status.stderr).toMatch(/fleetd refused this change at \S+ and serves the 1 node\(s\) it read at \S+/);
    await attestsFromTheLastGoodFile();

    // Emptied, as a truncated write leaves it: no inventory of 0 nodes.
    await writeFile(nodesPath, '');
    expect(await change(2)).toMatchObject({ outcome: 'refused', kept: 1, problems: [expect.stringContaining('declares no nodes')] });
    await attestsFromTheLastGoodFile();

    // Fixed, with a second node: served from now on, and nothing is degraded.
    await writeFile(
      nodesPath,
      nodesFile({ 'edit-1': entry, 'edit-2': nodeEntry({ serial: 'SN-EDIT-2', address: '10.0.1.12/24', switch_port: 'Port 6', disk_serial: 'S4EV2' }) }),
    );
    expect(await change(3)).toMatchObject({ outcome: 'reloaded', nodes: 2 });
    expect(await healthz()).toEqual({ ok: true });
    expect(await metric('fleet_inventory_change_refused')).toBe(0);
    const fixed = await fleetCli('status', '--nodes', nodesPath, '--state', stateDir);
    expect(fixed, fixed.stderr).toMatchObject({ code: 0 });
    expect(fixed.stdout).toContain('edit-2');
    await attestsFromTheLastGoodFile();
  }, 120_000);

  it('SIGHUP reads the file again and fleetd runs on; SIGTERM says what it stops, in order, and exits 0', async () => {
    const before = fleetd.lines.length;
    process.kill(fleetd.pid, 'SIGHUP');
    await until('the SIGHUP line', () => fleetd.lines.slice(before).find((l) => l === `fleetd: SIGHUP: reading ${nodesPath} again`));
    expect((await healthz()).ok).toBe(true);
    await attestsFromTheLastGoodFile();
    const at = fleetd.lines.length;
    expect(await fleetd.stop()).toBe(0);
    const said = fleetd.lines.slice(at);
    expect(said).toContain('fleetd: SIGTERM: stopping syslog, http, nodes-file watch, inventory, state, state lock, in that order');
    expect(said.at(-1)).toBe('fleetd: stopped');
  }, 60_000);
});

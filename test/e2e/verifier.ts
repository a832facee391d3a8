/**
 * fleetd for one e2e test file: `fleet serve` on 127.0.0.1 (HTTPS with the run's certificate, which
 * names 10.0.2.100, the address guestfwd gives it in the guest), the embedded inventory from a
 * nodes file, auto-provision on, the syslog receiver off unless asked for. Its audit lines are kept
 * for the checks.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import type { JournalEntry } from '../../verifier/inventory/device.js';
import type { DeviceRecord } from '../../verifier/inventory/embedded/embedded.js';
import { startFleetServe } from '../fleet-serve.js';
import { classInputs } from '../install/talos-fixture.js';
import { RIG_CATALOGUE } from '../swtpm/rig.js';
import { TSX } from '../tsx.js';
import type { E2eRun } from './manifest.js';

export interface Shown {
  record: DeviceRecord | null;
  journal: JournalEntry[];
}

export interface Verifier {
  port: number;
  /** The lab's nodes file, which the operator edits (fleetd reads it again when it changes). */
  nodesFile: string;
  /** Every stdout line: the audit lines (JSON). */
  audit: string[];
  /** Everything it printed, stdout and stderr, in order. */
  lines: string[];
  /** The audit lines of one event, parsed. */
  audited(event: string): Array<Record<string, unknown>>;
  /** `fleet inventory show HOST`: what fleet wrote, and the journal. */
  show(host: string): Promise<Shown>;
  /** `fleet attest approve SERIAL`: the waiting claim. */
  approve(serial: string): Promise<string>;
  /** `fleet inventory action HOST ACTION`: the owner's desired_action. */
  setDesiredAction(host: string, action: string): Promise<string>;
  close(): Promise<void>;
}

const fleet = (args: string[]) => promisify(execFile)(TSX[0], [...TSX.slice(1), 'cli/fleet.ts', ...args], { timeout: 60_000 }).then((r) => r.stdout);

/**
 * Classes beyond the rig's: a disk-image payload, its image served by the host. `serveArgs`: more
 * of `fleet serve`'s options (the lab's Tinkerbell API, its syslog receiver).
 */
export async function startVerifier(
  run: E2eRun,
  dir: string,
  nodes: Record<string, Record<string, unknown>>,
  classes: Record<string, unknown> = {},
  serveArgs: string[] = [],
): Promise<Verifier> {
  const nodesFile = join(dir, 'nodes.yaml');
  const state = join(dir, 'fleetd');
  writeFileSync(nodesFile, stringify({ ...RIG_CATALOGUE, classes: { ...RIG_CATALOGUE.classes, ...classes }, nodes }));
  const { dir: inputs } = await classInputs(join(dir, 'talos'));
  const fleetd = await startFleetServe([
    '--nodes',
    nodesFile,
    '--state',
    state,
    '--auto-provision',
    '--class-inputs',
    inputs,
    '--listen',
    '127.0.0.1:0',
    '--cert',
    run.tlsCert,
    '--key',
    run.tlsKey,
    ...(serveArgs.includes('--syslog-listen') ? [] : ['--syslog-listen', 'off']),
    ...serveArgs,
  ]);
  const audit = fleetd.stdout;
  return {
    port: Number(new URL(fleetd.url).port),
    nodesFile,
    audit,
    lines: fleetd.lines,
    audited: (event) => audit.map((l) => JSON.parse(l) as Record<string, unknown>).filter((a) => a.audit === event),
    show: async (host) => JSON.parse(await fleet(['inventory', 'show', host, '--nodes', nodesFile, '--state', state])) as Shown,
    approve: (serial) => fleet(['attest', 'approve', serial, '--state', state]),
    setDesiredAction: (host, action) => fleet(['inventory', 'action', host, action, '--nodes', nodesFile, '--state', state]),
    async close() {
      await fleetd.stop();
    },
  };
}

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { stringify } from 'yaml';
import type { BootFacts } from '../../agent/attest/attest-once.js';
import { Tpm } from '../../shared/tpm/client.js';
import { SocketTransport, type Transport } from '../../shared/tpm/transport.js';
import { AttestationService } from '../../verifier/attest/service.js';
import { SessionStore } from '../../verifier/attest/session-store.js';
import { createAudit } from '../../verifier/audit.js';
import { buildServer, listen } from '../../verifier/http/server.js';
import { EmbeddedInventory } from '../../verifier/inventory/embedded.js';
import { simulateBoot } from './boot.js';
import { copyTpmState, goldenTpm } from './provision.js';
import { startSwtpm, type RunningSwtpm } from './swtpm.js';

/** A recorded real boot (Secure Boot on, SHA-256 bank) that the rig's TPM "boots". */
export const BOOT_LOG = '../shared/testdata/eventlogs/keylime/binary_bios_measurements-secureboot';

export interface Rig {
  dir: string;
  url: string;
  tpm: Tpm;
  swtpm: RunningSwtpm;
  inventory: EmbeddedInventory;
  service: AttestationService;
  nodesPath: string;
  stateDir: string;
  audits: Array<Record<string, unknown>>;
  boot: BootFacts;
  installCodePath: string;
  writeNodes(nodes: Array<Record<string, unknown>>): Promise<void>;
  close(): Promise<void>;
}

export interface RigOptions {
  /** Which machine's TPM: golden state a or b. */
  machine?: 'a' | 'b';
  /** A TPM that ships its EKs persisted at 0x81010001/0x81010002. */
  persistEks?: boolean;
  sessionTtlMs?: number;
  /** Wraps the TPM transport (to play a TPM that lacks a key type). */
  wrap?: (t: Transport) => Transport;
  serial?: string;
}

/** A verifier on loopback, a swtpm that has "booted" a recorded firmware log, and the agent's boot facts. */
export async function startRig(opts: RigOptions = {}): Promise<Rig> {
  const dir = await mkdtemp(join(tmpdir(), 'fleet-rig-'));
  const golden = await goldenTpm(opts.machine ?? 'a', { persistEks: opts.persistEks ?? false });
  const state = await copyTpmState(golden, join(dir, 'tpm'));
  const swtpm = await startSwtpm(state.stateDir);
  const transport = await SocketTransport.connect({ path: swtpm.socketPath });
  const tpm = new Tpm(opts.wrap ? opts.wrap(transport) : transport);
  const eventLog = new Uint8Array(await readFile(BOOT_LOG));
  await simulateBoot(tpm, eventLog);

  const nodesPath = join(dir, 'nodes.yaml');
  const stateDir = join(dir, 'state');
  const writeNodes = (nodes: Array<Record<string, unknown>>) => writeFile(nodesPath, stringify({ nodes }));
  await writeNodes([]);
  const inventory = await EmbeddedInventory.open(nodesPath, stateDir);
  const audits: Array<Record<string, unknown>> = [];
  const service = new AttestationService({
    inventory,
    audit: createAudit((l) => audits.push(JSON.parse(l) as Record<string, unknown>)),
    sessions: new SessionStore(opts.sessionTtlMs ?? 60_000),
  });
  const app: FastifyInstance = buildServer({ service });
  const url = await listen(app, { host: '127.0.0.1', port: 0 }, false);
  return {
    dir,
    url,
    tpm,
    swtpm,
    inventory,
    service,
    nodesPath,
    stateDir,
    audits,
    boot: { serial: opts.serial ?? 'SN-TEST-0001', mac: '52:54:00:12:34:56', bootId: '0f2b9c4e-5d6a-4b7c-8d9e-0a1b2c3d4e5f', eventLog, lldp: null },
    installCodePath: join(dir, 'worker', 'fleet', 'install_code'),
    writeNodes,
    async close() {
      await app.close();
      await tpm.close().catch(() => undefined);
      await swtpm.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

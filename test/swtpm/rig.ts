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
import type { Device } from '../../verifier/inventory/device.js';
import { EmbeddedInventory } from '../../verifier/inventory/embedded/embedded.js';
import { openDatabase, type Db } from '../../verifier/state/database.js';
import { LocalStore } from '../../verifier/state/local-store.js';
import { testInstalls, type TestInstalls } from '../install/talos-fixture.js';
import type { TargetCluster } from '../../verifier/kube/target-cluster.js';
import { buildLldpFrame } from '../lldp/frame.js';
import { nodeEntry } from '../node-entry.js';
import { TESTDATA } from '../testdata.js';
import type { RunKind } from '../../verifier/reconcile/desired.js';
import type { OpenRun } from '../../verifier/reconcile/open-run.js';
import { simulateBoot } from './boot.js';
import { copyTpmState, goldenTpm } from './provision.js';
import { startSwtpm, type RunningSwtpm } from './swtpm.js';

/** A recorded real boot (Secure Boot on, SHA-256 bank) that the rig's TPM "boots". */
export const BOOT_LOG = `${TESTDATA}eventlogs/keylime/binary_bios_measurements-secureboot`;

/** The port the rig's switch names in its LLDP frame, and its node's entry declares. */
export const RIG_PORT = 'Port 5';

/** The models and classes every rig nodes file declares. */
export const RIG_CATALOGUE = {
  models: { m720q: { vendor: 'Lenovo' } },
  classes: {
    worker: { payload: 'talos', installer_image: 'ghcr.io/siderolabs/installer:v1.9.5' },
    controlplane: { payload: 'talos', installer_image: 'ghcr.io/siderolabs/installer:v1.9.5' },
    // A control plane by its definition, under another name.
    'api-edge': { payload: 'talos', installer_image: 'ghcr.io/siderolabs/installer:v1.9.5', control_plane: true },
    // One class per disk-image payload.
    nixos: { payload: 'nixos-image', image_url: 'https://images.lab/nixos.raw.zst', image_sha256: 'c'.repeat(64) },
    alpine: { payload: 'alpine-image', image_url: 'https://images.lab/alpine.raw.zst', image_sha256: 'd'.repeat(64) },
    cloud: { payload: 'cloud-init-nocloud', image_url: 'https://images.lab/debian.raw.zst', image_sha256: 'e'.repeat(64) },
  },
};

export interface Rig {
  dir: string;
  url: string;
  /** The install codes and configs of this verifier (its class inputs, config store, metrics). */
  install: TestInstalls;
  tpm: Tpm;
  swtpm: RunningSwtpm;
  db: Db;
  inventory: EmbeddedInventory;
  store: LocalStore;
  service: AttestationService;
  nodesPath: string;
  stateDir: string;
  audits: Array<Record<string, unknown>>;
  boot: BootFacts;
  installCodePath: string;
  /** Writes the nodes file: these nodes, keyed by host name, with the rig's models and classes. */
  writeNodes(nodes: Record<string, Record<string, unknown>>): Promise<void>;
  /** Declares node-1 for this machine with every field a run needs, overridden by `fields` (null removes one). */
  declare(fields?: Record<string, unknown>): Promise<Device>;
  /**
   * Plays Tinkerbell holding an unfinished Workflow fleetd started for node-1 (what KubeRuns reads;
   * the loop tests run the real one): its boots get codes for it. null: no run under way.
   */
  runUnderWay(kind: RunKind | null): OpenRun | null;
  close(): Promise<void>;
}

export interface RigOptions {
  /** Which machine's TPM: golden state a or b. */
  machine?: 'a' | 'b';
  /** A TPM that ships its EKs persisted at 0x81010001/0x81010002. */
  persistEks?: boolean;
  sessionTtlMs?: number;
  /** The recorded firmware log its TPM boots (BOOT_LOG by default). */
  bootLog?: string;
  /** Wraps the TPM transport (to play a TPM that lacks a key type). */
  wrap?: (t: Transport) => Transport;
  serial?: string;
  autoProvision?: boolean;
  /** The cluster nodes join, where each node's bootstrap token is created. */
  target?: TargetCluster;
}

/** The boot facts of the rig's machine: its MAC and boot id, the firmware's log, the switch's LLDP frame for RIG_PORT. */
export function rigBoot(serial: string, eventLog: Uint8Array): BootFacts {
  return {
    serial,
    mac: '52:54:00:12:34:56',
    bootId: '0f2b9c4e-5d6a-4b7c-8d9e-0a1b2c3d4e5f',
    uuid: null,
    eventLog,
    lldp: buildLldpFrame({ chassisMac: '24:5a:4c:00:00:01', portId: RIG_PORT, systemName: 'usw-rack-1' }),
  };
}

/** A verifier on loopback, a swtpm that has "booted" a recorded firmware log, and the agent's boot facts. */
export async function startRig(opts: RigOptions = {}): Promise<Rig> {
  const dir = await mkdtemp(join(tmpdir(), 'fleet-rig-'));
  const golden = await goldenTpm(opts.machine ?? 'a', { persistEks: opts.persistEks ?? false });
  const state = await copyTpmState(golden, join(dir, 'tpm'));
  const swtpm = await startSwtpm(state.stateDir);
  const transport = await SocketTransport.connect({ path: swtpm.socketPath });
  const tpm = new Tpm(opts.wrap ? opts.wrap(transport) : transport);
  const eventLog = new Uint8Array(await readFile(opts.bootLog ?? BOOT_LOG));
  await simulateBoot(tpm, eventLog);

  const serial = opts.serial ?? 'SN-TEST-0001';
  const nodesPath = join(dir, 'nodes.yaml');
  const stateDir = join(dir, 'state');
  const writeNodes = (nodes: Record<string, Record<string, unknown>>) => writeFile(nodesPath, stringify({ ...RIG_CATALOGUE, nodes }));
  await writeNodes({});
  const db = openDatabase(stateDir);
  const inventory = new EmbeddedInventory(nodesPath, db);
  const store = new LocalStore(db);
  const audits: Array<Record<string, unknown>> = [];
  const audit = createAudit((l) => audits.push(JSON.parse(l) as Record<string, unknown>));
  const install = await testInstalls(dir, inventory, store, audit, opts.target ? { target: opts.target } : {});
  let openRun: OpenRun | null = null;
  const service = new AttestationService({
    runs: { open: async (d) => (d.hostname === 'node-1' ? openRun : null) },
    inventory,
    store,
    audit,
    installs: install.installs,
    metrics: install.metrics,
    sessions: new SessionStore(opts.sessionTtlMs ?? 60_000),
    autoProvision: opts.autoProvision ?? false,
  });
  const app: FastifyInstance = buildServer({ service, installs: install.installs, metrics: install.metrics });
  const url = await listen(app, { host: '127.0.0.1', port: 0 }, false);
  return {
    dir,
    url,
    install,
    tpm,
    swtpm,
    db,
    inventory,
    store,
    service,
    nodesPath,
    stateDir,
    audits,
    boot: { ...rigBoot(serial, eventLog), uuid: '4c4c4544-0031-4a10-8052-b4c04f4e3132' },
    installCodePath: join(dir, 'worker', 'fleet', 'install_code'),
    writeNodes,
    runUnderWay(kind) {
      openRun = kind && { name: `${kind}-node-1-1764480000`, kind };
      return openRun;
    },
    async declare(fields = {}) {
      await writeNodes({ 'node-1': nodeEntry({ serial, switch_port: RIG_PORT, disk_serial: 'S4EVNF0M123456', ...fields }) });
      return (await inventory.deviceByName('node-1'))!;
    },
    async close() {
      await app.close();
      await tpm.close().catch(() => undefined);
      await swtpm.stop();
      db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

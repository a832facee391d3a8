import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Audit } from '../../verifier/audit.js';
import { renderClassInputs, renderSeedInputs, writeClassInputs, type ClassSettings, type TalosSecrets } from '../../verifier/install/class-inputs.js';
import { writeSeedInputs } from '../../verifier/install/seed-inputs.js';
import { ConfigStore } from '../../verifier/install/config-store.js';
import { Installs, type InstallsOptions } from '../../verifier/install/installs.js';
import type { Inventory } from '../../verifier/inventory/inventory.js';
import { Metrics } from '../../verifier/metrics.js';
import type { LocalStore } from '../../verifier/state/local-store.js';
import { readPem, selfSigned, tlsFiles } from '../tls-files.js';

/** The lab's cluster settings, as `fleet render-class-inputs` takes them. */
export const SETTINGS: ClassSettings = {
  clusterName: 'folly',
  endpoint: 'https://10.0.1.10:6443',
  kubernetesVersion: 'v1.31.4',
  network: { gateway: '10.0.1.1', nameservers: ['10.0.1.1'] },
  apiServerSANs: ['api.folly.example'],
  classes: {
    worker: { type: 'worker', installerImage: 'ghcr.io/siderolabs/installer:v1.9.5' },
    controlplane: { type: 'controlplane', installerImage: 'ghcr.io/siderolabs/installer:v1.9.5' },
    'api-edge': { type: 'controlplane', installerImage: 'ghcr.io/siderolabs/installer:v1.9.5' },
    nixos: { type: 'seed', data: { role: 'storage', sshKeys: ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFleetTestKeyOnly fleet@lab'] } },
    alpine: { type: 'seed' },
    cloud: { type: 'seed', userData: '#cloud-config\npackage_update: false\nruncmd:\n  - [touch, /run/fleet-seeded]\n' },
  },
};

const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

/** A secrets bundle shaped like `talosctl gen secrets`, with real CA certificates and keys. */
export async function talosSecrets(dir: string): Promise<TalosSecrets> {
  await mkdir(dir, { recursive: true });
  const ca = (name: string) => {
    const pem = readPem(selfSigned(tlsFiles(dir, name), { subject: `/O=${name}` }));
    return { crt: b64(pem.cert), key: b64(pem.key) };
  };
  const [etcd, k8s, k8saggregator, os, sa] = ['etcd', 'kubernetes', 'aggregator', 'talos', 'service-account'].map(ca);
  const rnd = (n: number) => Array.from({ length: n }, () => 'abcdefghijklmnopqrstuvwxyz0123456789'[Math.floor(Math.random() * 36)]).join('');
  return {
    cluster: { id: b64(rnd(32)), secret: b64(rnd(32)) },
    secrets: { bootstraptoken: `${rnd(6)}.${rnd(16)}`, secretboxencryptionsecret: b64(rnd(32)) },
    trustdinfo: { token: `${rnd(6)}.${rnd(16)}` },
    certs: { etcd: etcd!, k8s: k8s!, k8saggregator: k8saggregator!, k8sserviceaccount: { key: sa!.key }, os: os! },
  };
}

/** Writes the class inputs for SETTINGS under `dir/class-inputs`; returns that directory and the secrets. */
export async function classInputs(dir: string): Promise<{ dir: string; secrets: TalosSecrets }> {
  const secrets = await talosSecrets(join(dir, 'secrets'));
  const out = join(dir, 'class-inputs');
  await writeClassInputs(out, renderClassInputs(secrets, SETTINGS));
  await writeSeedInputs(out, renderSeedInputs(SETTINGS));
  return { dir: out, secrets };
}

export interface TestInstalls {
  installs: Installs;
  metrics: Metrics;
  configs: ConfigStore;
  classInputsDir: string;
  secrets: TalosSecrets;
}

/** Installs as fleet serve makes them, with class inputs rendered into `dir`. */
export async function testInstalls(
  dir: string,
  inventory: Inventory,
  store: LocalStore,
  audit: Audit,
  opts: Partial<InstallsOptions> = {},
): Promise<TestInstalls> {
  const { dir: classInputsDir, secrets } = await classInputs(dir);
  const metrics = opts.metrics ?? new Metrics();
  const configs = opts.configs ?? new ConfigStore();
  const installs = new Installs({ inventory, store, configs, audit, metrics, configTtlMs: 3600_000, classInputsDir, ...opts });
  return { installs, metrics, configs, classInputsDir, secrets };
}

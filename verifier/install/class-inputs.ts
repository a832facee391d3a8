import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { FleetError, errorMessage } from '../../shared/errors.js';
import { writeFileAtomic } from '../../shared/fs/atomic-write.js';
import type { SeedInputs } from './seed-inputs.js';
import { parseBase, validateTalosConfig, type ClassNetwork, type TalosConfig } from './talos-config.js';

/** The cluster's secrets, as `talosctl gen secrets` writes them (certificates and keys base64 PEM). */
export interface TalosSecrets {
  cluster: { id: string; secret: string };
  secrets: { bootstraptoken: string; secretboxencryptionsecret: string };
  trustdinfo: { token: string };
  certs: {
    etcd: { crt: string; key: string };
    k8s: { crt: string; key: string };
    k8saggregator: { crt: string; key: string };
    k8sserviceaccount: { key: string };
    os: { crt: string; key: string };
  };
}

/** The cluster-wide settings and the classes to render inputs for. */
export interface ClassSettings {
  clusterName: string;
  endpoint: string;
  kubernetesVersion: string;
  network: ClassNetwork & { podSubnets?: string[]; serviceSubnets?: string[] };
  apiServerSANs?: string[];
  /** Talos classes (worker, controlplane), and disk-image classes (seed: their seed's inputs). */
  classes: Record<string, TalosClassSettings | SeedClassSettings>;
}

export interface TalosClassSettings {
  type: 'worker' | 'controlplane';
  installerImage: string;
}

export interface SeedClassSettings {
  type: 'seed';
  /** cloud-init-nocloud: the class's user-data. */
  userData?: string;
  /** nixos-image, alpine-image: what the class adds to each node's seed document. */
  data?: Record<string, unknown>;
}

/** Each disk-image class's seed inputs: the cluster's network and the class's own parts. */
export function renderSeedInputs(settings: ClassSettings): Map<string, SeedInputs> {
  const out = new Map<string, SeedInputs>();
  const network = { gateway: settings.network.gateway, ...(settings.network.nameservers ? { nameservers: settings.network.nameservers } : {}) };
  for (const [name, cls] of Object.entries(settings.classes)) {
    if (cls.type !== 'seed') continue;
    out.set(name, { network, ...(cls.userData !== undefined ? { userData: cls.userData } : {}), data: cls.data ?? {} });
  }
  return out;
}

/**
 * What Talos 1.9's own generator (`talosctl gen config`) puts in every base document beside the
 * cluster's secrets and names: a test holds fleet's base documents to Talos's generated ones.
 */
const TALOS_DEFAULTS = {
  kubelet: { defaultRuntimeSeccompProfileEnabled: true, disableManifestsDirectory: true },
  features: {
    rbac: true,
    stableHostname: true,
    apidCheckExtKeyUsage: true,
    diskQuotaSupport: true,
    kubePrism: { enabled: true, port: 7445 },
    hostDNS: { enabled: true, forwardKubeDNSToHost: true },
  },
  discovery: { enabled: true, registries: { kubernetes: { disabled: true }, service: {} } },
  controlPlaneNodeLabels: { 'node.kubernetes.io/exclude-from-external-load-balancers': '' },
  admissionControl: [
    {
      name: 'PodSecurity',
      configuration: {
        apiVersion: 'pod-security.admission.config.k8s.io/v1alpha1',
        defaults: {
          audit: 'restricted',
          'audit-version': 'latest',
          enforce: 'baseline',
          'enforce-version': 'latest',
          warn: 'restricted',
          'warn-version': 'latest',
        },
        exemptions: { namespaces: ['kube-system'], runtimeClasses: [], usernames: [] },
        kind: 'PodSecurityConfiguration',
      },
    },
  ],
  auditPolicy: { apiVersion: 'audit.k8s.io/v1', kind: 'Policy', rules: [{ level: 'Metadata' }] },
} as const;

/**
 * Each class's base document from the cluster's secrets and settings, as Talos's own generator
 * makes it (TALOS_DEFAULTS), plus the class's installer image. A worker's document holds the
 * cluster CA certificates but no CA key: only a control plane's inputs carry keys, so a stolen
 * worker config signs nothing.
 */
export function renderClassInputs(secrets: TalosSecrets, settings: ClassSettings): Map<string, { config: TalosConfig; network: ClassNetwork }> {
  const out = new Map<string, { config: TalosConfig; network: ClassNetwork }>();
  for (const [name, cls] of Object.entries(settings.classes)) {
    if (cls.type === 'seed') continue;
    const cp = cls.type === 'controlplane';
    const c = secrets.certs;
    const config: TalosConfig = {
      version: 'v1alpha1',
      debug: false,
      persist: true,
      machine: {
        type: cls.type,
        token: secrets.trustdinfo.token,
        ca: { crt: c.os.crt, key: cp ? c.os.key : '' },
        certSANs: [],
        kubelet: { image: `ghcr.io/siderolabs/kubelet:${settings.kubernetesVersion}`, ...TALOS_DEFAULTS.kubelet },
        network: {},
        install: { image: cls.installerImage, wipe: false },
        features: structuredClone(TALOS_DEFAULTS.features),
        ...(cp ? { nodeLabels: { ...TALOS_DEFAULTS.controlPlaneNodeLabels } } : {}),
      },
      cluster: {
        id: secrets.cluster.id,
        secret: secrets.cluster.secret,
        controlPlane: { endpoint: settings.endpoint },
        clusterName: settings.clusterName,
        // The cluster-wide token, used when no per-node token is made (no target cluster configured).
        token: secrets.secrets.bootstraptoken,
        network: {
          dnsDomain: 'cluster.local',
          podSubnets: settings.network.podSubnets ?? ['10.244.0.0/16'],
          serviceSubnets: settings.network.serviceSubnets ?? ['10.96.0.0/12'],
        },
        ca: { crt: c.k8s.crt, key: cp ? c.k8s.key : '' },
        ...(cp
          ? {
              aggregatorCA: { crt: c.k8saggregator.crt, key: c.k8saggregator.key },
              serviceAccount: { key: c.k8sserviceaccount.key },
              etcd: { ca: { crt: c.etcd.crt, key: c.etcd.key } },
              secretboxEncryptionSecret: secrets.secrets.secretboxencryptionsecret,
              apiServer: {
                image: `registry.k8s.io/kube-apiserver:${settings.kubernetesVersion}`,
                // Talos names the endpoint's host first; the cluster's own SANs follow.
                certSANs: [...new Set([new URL(settings.endpoint).hostname, ...(settings.apiServerSANs ?? [])])],
                disablePodSecurityPolicy: true,
                admissionControl: structuredClone(TALOS_DEFAULTS.admissionControl),
                auditPolicy: structuredClone(TALOS_DEFAULTS.auditPolicy),
              },
              controllerManager: { image: `registry.k8s.io/kube-controller-manager:${settings.kubernetesVersion}` },
              proxy: { image: `registry.k8s.io/kube-proxy:${settings.kubernetesVersion}` },
              scheduler: { image: `registry.k8s.io/kube-scheduler:${settings.kubernetesVersion}` },
            }
          : {}),
        discovery: structuredClone(TALOS_DEFAULTS.discovery),
      },
    };
    out.set(name, {
      config,
      network: { gateway: settings.network.gateway, ...(settings.network.nameservers ? { nameservers: settings.network.nameservers } : {}) },
    });
  }
  return out;
}

/** Writes each class's inputs to `<dir>/<class>/config.yaml` and `network.yaml`, mode 0600 (they hold secrets). */
export async function writeClassInputs(dir: string, inputs: Map<string, { config: TalosConfig; network: ClassNetwork }>): Promise<void> {
  for (const [name, { config, network }] of inputs) {
    await mkdir(join(dir, name), { recursive: true, mode: 0o700 });
    await writeFileAtomic(join(dir, name, 'config.yaml'), stringify(config, { lineWidth: 0 }), 0o600);
    await writeFileAtomic(join(dir, name, 'network.yaml'), stringify(network), 0o600);
  }
}

/**
 * A class's inputs, for rendering a node. Missing or incomplete inputs refuse the render: a control
 * plane without its keys must get no code (the lab's old tool wiped and installed nothing).
 */
export async function readClassInputs(dir: string, className: string): Promise<{ base: TalosConfig; network: ClassNetwork }> {
  const where = join(dir, className);
  let configText: string;
  let networkText: string;
  try {
    [configText, networkText] = await Promise.all([readFile(join(where, 'config.yaml'), 'utf8'), readFile(join(where, 'network.yaml'), 'utf8')]);
  } catch (err) {
    throw new FleetError(
      'class-inputs-missing',
      `the class inputs of ${className} are missing (${errorMessage(err)}); run fleet render-class-inputs and deploy them`,
    );
  }
  const base = parseBase(configText, join(where, 'config.yaml'));
  const network = parse(networkText) as ClassNetwork | null;
  if (!network || typeof network.gateway !== 'string') throw new FleetError('class-inputs-invalid', `${join(where, 'network.yaml')} names no gateway`);
  // The base must already hold everything but the node's values: check with placeholder values.
  const probe = structuredClone(base);
  probe.machine.network = { hostname: 'probe', interfaces: [{}] };
  probe.machine.install = { ...(probe.machine.install as object), disk: '/dev/probe' };
  if (base.machine.type === 'controlplane') probe.cluster.apiServer = { ...(probe.cluster.apiServer as object), certSANs: ['probe'] };
  try {
    validateTalosConfig(probe);
  } catch (err) {
    throw new FleetError(
      'class-inputs-missing',
      `the class inputs of ${className} are incomplete: ${errorMessage(err)}; run fleet render-class-inputs and deploy them`,
    );
  }
  return { base, network };
}

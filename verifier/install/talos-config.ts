import { parse, stringify } from 'yaml';
import { FleetError } from '../../shared/errors.js';

/** A Talos machine config document (v1alpha1), as plain data: only the parts fleet sets or checks are typed. */
export type TalosConfig = Record<string, unknown> & {
  version: 'v1alpha1';
  machine: Record<string, unknown>;
  cluster: Record<string, unknown>;
};

/** What a node adds to its class's config. */
export interface NodeValues {
  hostname: string;
  /** CIDR, e.g. 10.0.1.11/24. */
  address: string;
  mac: string;
  installDisk: string;
  /** <id>.<secret>: the node's own bootstrap token in the target cluster; without one, the class's. */
  bootstrapToken?: string;
}

/** Class-wide values the class inputs carry beside the base document. */
export interface ClassNetwork {
  gateway: string;
  nameservers?: string[];
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function get(o: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (isMap(v) ? v[k] : undefined), o);
}

const BOOTSTRAP_TOKEN = /^[a-z0-9]{6}\.[a-z0-9]{16}$/;

/**
 * Checks a rendered document holds what Talos needs to join the cluster, and that a worker holds
 * no CA key (the class inputs of workers never carry one). Throws naming every missing field.
 */
export function validateTalosConfig(cfg: unknown): asserts cfg is TalosConfig {
  const problems: string[] = [];
  const need = (path: string, ok: (v: unknown) => boolean = (v) => typeof v === 'string' && v.length > 0) => {
    if (!ok(get(cfg, path))) problems.push(path);
  };
  need('version', (v) => v === 'v1alpha1');
  need('machine.type', (v) => v === 'worker' || v === 'controlplane');
  need('machine.token');
  need('machine.ca.crt');
  need('machine.network.hostname');
  need('machine.network.interfaces', (v) => Array.isArray(v) && v.length > 0);
  need('machine.install.disk');
  need('machine.install.image');
  need('cluster.id');
  need('cluster.secret');
  need('cluster.clusterName');
  need('cluster.controlPlane.endpoint', (v) => typeof v === 'string' && /^https:\/\/\S+$/.test(v));
  need('cluster.ca.crt');
  need('cluster.token', (v) => typeof v === 'string' && BOOTSTRAP_TOKEN.test(v));
  if (get(cfg, 'machine.type') === 'controlplane') {
    for (const p of [
      'machine.ca.key',
      'cluster.ca.key',
      'cluster.aggregatorCA.crt',
      'cluster.aggregatorCA.key',
      'cluster.serviceAccount.key',
      'cluster.etcd.ca.crt',
      'cluster.etcd.ca.key',
      'cluster.secretboxEncryptionSecret',
    ])
      need(p);
    need('cluster.apiServer.certSANs', (v) => Array.isArray(v) && v.length > 0);
  } else {
    for (const p of ['machine.ca.key', 'cluster.ca.key']) if (get(cfg, p)) problems.push(`${p} (a worker holds no CA key)`);
  }
  if (problems.length) throw new FleetError('render-invalid', `the rendered Talos config lacks or misuses: ${problems.join(', ')}`);
}

/**
 * The node's config: its class's base document plus the node's own values: host name, static
 * address on the NIC with its MAC, default route, install disk, and its own bootstrap token. A
 * control plane's API server certificate also names the node. Pure; the result is validated.
 */
export function renderTalosConfig(base: TalosConfig, network: ClassNetwork, node: NodeValues): string {
  const cfg = structuredClone(base);
  const ip = node.address.split('/')[0]!;
  const machine = cfg.machine;
  machine.network = {
    ...(isMap(machine.network) ? machine.network : {}),
    hostname: node.hostname,
    interfaces: [
      { deviceSelector: { hardwareAddr: node.mac }, dhcp: false, addresses: [node.address], routes: [{ network: '0.0.0.0/0', gateway: network.gateway }] },
    ],
    ...(network.nameservers?.length ? { nameservers: network.nameservers } : {}),
  };
  machine.install = { ...(isMap(machine.install) ? machine.install : {}), disk: node.installDisk, wipe: false };
  if (node.bootstrapToken) cfg.cluster.token = node.bootstrapToken;
  if (machine.type === 'controlplane') {
    const api = isMap(cfg.cluster.apiServer) ? cfg.cluster.apiServer : {};
    const sans = Array.isArray(api.certSANs) ? (api.certSANs as string[]) : [];
    cfg.cluster.apiServer = { ...api, certSANs: [...new Set([...sans, ip, node.hostname])] };
  }
  validateTalosConfig(cfg);
  return stringify(cfg, { lineWidth: 0 });
}

/** Reads a base document from YAML, refusing anything that is not a v1alpha1 machine config. */
export function parseBase(text: string, where: string): TalosConfig {
  const doc: unknown = parse(text);
  if (!isMap(doc) || doc.version !== 'v1alpha1' || !isMap(doc.machine) || !isMap(doc.cluster)) {
    throw new FleetError('class-inputs-invalid', `${where} is not a Talos v1alpha1 machine config`);
  }
  return doc as TalosConfig;
}

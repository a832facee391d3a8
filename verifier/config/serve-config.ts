/**
 * `fleet serve`'s flags and environment, read once into the typed config each part is handed:
 * every usage error is raised here, before fleetd opens or binds anything, and no part reads a
 * flag name.
 */
import { FleetError } from '../../shared/errors.js';
import type { GroupPrefixes } from '../../shared/net/address-group.js';
import { parseSubnet, type Subnet } from '../../shared/net/subnet.js';
import { parseListenAddress, type ListenAddress } from '../http/listen-address.js';
import { readOptions } from '../../shared/options.js';
import { SERVE_OPTIONS, serveUsage, type ServeOptionName } from './serve-options.js';

export type InventoryConfig =
  | { kind: 'embedded'; nodesFile: string; nodeNetwork: string | undefined }
  | { kind: 'netbox'; url: string; tokenFile: string; bindingAuthor: string | undefined; classesFile: string | undefined };

export interface HttpConfig {
  listen: ListenAddress;
  tls: { certPath: string; keyPath: string } | null;
  metricsFrom: Subnet[];
  sessionTtlMs: number;
  /** The prefixes whose addresses share the caps a single address has (one host's aliases). */
  groups: GroupPrefixes;
  /** FLEET_LOG_LEVEL: fastify's request log (pino levels). */
  logLevel: string;
}

/** The reconciler's: Tinkerbell's API, how often it passes, its Lease, how long an intake waits. */
export interface ReconcilerConfig {
  kubeconfig: string;
  namespace: string;
  intervalS: number;
  leaseS: number;
  hookosWaitS: number;
}

export interface InstallConfig {
  autoProvision: boolean;
  configTtlMs: number;
  classInputsDir: string | undefined;
  targetKubeconfig: string | undefined;
  baseUrl: string | undefined;
  seedUrl: string | undefined;
  configUrl: string | undefined;
}

export interface SyslogConfig {
  /** null: no receiver (`off`). */
  listen: string | null;
  journalSocket: string;
  /** Named on the command line: then it must start, or fleetd does not. */
  asked: boolean;
}

export interface ServeConfig {
  stateDir: string;
  inventory: InventoryConfig;
  http: HttpConfig;
  /** null without --kubeconfig: fleetd attests and serves, and drives no run. */
  reconcile: ReconcilerConfig | null;
  install: InstallConfig;
  syslog: SyslogConfig;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** The config, or `help` when --help was asked for. */
export function parseServeConfig(args: string[], env: NodeJS.ProcessEnv): ServeConfig | 'help' {
  const o = readOptions(SERVE_OPTIONS, args, env);
  if (o === 'help') return 'help';
  const { given: str, defaulted, seconds } = o;
  const prefix = (name: 'address-group-v4' | 'address-group-v6', bits: number): number => {
    const n = Number(defaulted(name));
    if (!Number.isInteger(n) || n < 0 || n > bits)
      throw new FleetError('usage', `--${name} must be a prefix length from 0 to ${bits} (not ${defaulted(name)})`);
    return n;
  };

  const stateDir = str('state');
  if (!stateDir) throw new FleetError('usage', `--state is required\n${serveUsage()}`);
  const cert = str('cert');
  const key = str('key');
  if (!cert !== !key) throw new FleetError('usage', '--cert and --key go together');
  const logLevel = env.FLEET_LOG_LEVEL ?? 'warn';
  if (!LOG_LEVELS.includes(logLevel)) throw new FleetError('usage', `FLEET_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (not ${logLevel})`);

  const kubeconfig = str('kubeconfig');
  let reconcile: ReconcilerConfig | null = null;
  if (kubeconfig) {
    const intervalS = seconds('reconcile-interval');
    const leaseS = seconds('lease-duration');
    // The holder renews the Lease once a pass: a Lease shorter than the interval lapses between passes.
    if (leaseS <= intervalS)
      throw new FleetError(
        'usage',
        `--lease-duration (${leaseS} s) must be longer than --reconcile-interval (${intervalS} s): the holder renews it once a pass`,
      );
    reconcile = { kubeconfig, namespace: defaulted('namespace'), intervalS, leaseS, hookosWaitS: seconds('hookos-wait') };
  }

  const syslogListen = defaulted('syslog-listen');
  return {
    stateDir,
    inventory: inventoryConfig(str),
    http: {
      listen: parseListenAddress(defaulted('listen')),
      tls: cert && key ? { certPath: cert, keyPath: key } : null,
      metricsFrom: metricsFrom(str('metrics-from')),
      sessionTtlMs: seconds('session-ttl') * 1000,
      groups: { v4: prefix('address-group-v4', 32), v6: prefix('address-group-v6', 128) },
      logLevel,
    },
    reconcile,
    install: {
      autoProvision: o.flag('auto-provision'),
      configTtlMs: seconds('config-ttl') * 1000,
      classInputsDir: str('class-inputs'),
      targetKubeconfig: str('target-kubeconfig'),
      baseUrl: str('base-url'),
      seedUrl: str('seed-url'),
      configUrl: str('config-url'),
    },
    syslog: {
      listen: syslogListen === 'off' ? null : syslogListen,
      journalSocket: defaulted('journal-socket'),
      asked: str('syslog-listen') !== undefined || str('journal-socket') !== undefined,
    },
  };
}

/** --metrics-from's networks; one it cannot read is a usage error, never a wider network than meant. */
function metricsFrom(list: string | undefined): Subnet[] {
  return (list ?? '')
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)
    .map((entry) => {
      const s = parseSubnet(entry);
      if (!s) throw new FleetError('usage', `--metrics-from: ${entry} is not an address or an address/prefix`);
      return s;
    });
}

/** The options that name the inventory, which fleet serve and fleet status share. */
type InventoryOptionName = Extract<ServeOptionName, 'nodes' | 'netbox-url' | 'netbox-token-file' | 'binding-author' | 'classes' | 'node-network'>;

/** Exactly one inventory: the embedded nodes file, or NetBox with its token. */
export function inventoryConfig(str: (name: InventoryOptionName) => string | undefined): InventoryConfig {
  const nodes = str('nodes');
  const url = str('netbox-url');
  if (nodes && url) throw new FleetError('usage', 'name one inventory: --nodes or --netbox-url, not both');
  if (nodes) return { kind: 'embedded', nodesFile: nodes, nodeNetwork: str('node-network') };
  if (!url) throw new FleetError('usage', 'name an inventory: --nodes FILE, or --netbox-url URL with --netbox-token-file FILE');
  const tokenFile = str('netbox-token-file');
  if (!tokenFile) throw new FleetError('usage', '--netbox-url needs --netbox-token-file');
  return { kind: 'netbox', url, tokenFile, bindingAuthor: str('binding-author'), classesFile: str('classes') };
}

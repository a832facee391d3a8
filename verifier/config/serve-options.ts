/**
 * `fleet serve`'s options, each defined once: parseArgs reads them, `fleet serve --help` and
 * docs/reference/serve.md print them (npm run docs), and serve-config.ts turns what was given into
 * the typed config the parts get. A default here is the value an operator reads in --help.
 */
import { DEFAULT_JOURNAL_SOCKET } from '../syslog/journal-socket.js';

export interface ServeOption {
  name: string;
  /** What its value is, as --help shows it; none for a switch. */
  value?: string;
  default?: string;
  /** An environment variable read when the option is not given. */
  env?: string;
  help: string;
}

/** In --help's order: what fleetd keeps, whom it asks, how it answers, what it drives, what it serves, what it hears. */
export const SERVE_OPTIONS = [
  {
    name: 'state',
    value: 'DIR',
    help: "fleetd's own state (SQLite): waiting claims, install code hashes, and the embedded inventory's device state and journal",
  },
  { name: 'nodes', value: 'FILE', help: "the embedded inventory: the lab's nodes file (models, classes, nodes)" },
  { name: 'netbox-url', value: 'URL', help: 'or NetBox (https://capsule.<tailnet>)' },
  { name: 'netbox-token-file', value: 'FILE', help: 'its API token (v1, or v2 nbt_...), read from a file so no ps shows it' },
  { name: 'binding-author', value: 'USER', help: "the NetBox user whose writes of approved_ek_hash* are trusted (Terraform's)" },
  { name: 'classes', value: 'FILE', help: "with NetBox: the classes (a nodes file's classes: map), which NetBox names only" },
  { name: 'node-network', value: 'CIDR', help: "the nodes' network (K8S_NODE_CIDR): a nodes file may then write addresses without a prefix" },
  { name: 'auto-provision', help: "start a planned worker's provision when it first attests" },
  { name: 'listen', value: 'HOST:PORT', default: '127.0.0.1:8443', help: 'where fleetd answers; anything but loopback needs --cert and --key' },
  { name: 'cert', value: 'FILE', help: 'PEM certificate chain: serve HTTPS (with --key); a renewed file is taken without a restart' },
  { name: 'key', value: 'FILE', help: "the certificate's PEM key" },
  { name: 'metrics-from', value: 'ADDR[/PREFIX],...', help: 'who besides loopback may read /metrics (its labels name nodes)' },
  { name: 'session-ttl', value: 'SEC', default: '60', help: 'how long a started attestation may take to finish' },
  { name: 'kubeconfig', value: 'FILE', help: "Tinkerbell's API (client certificate): reconcile Hardware, Machines and Workflows" },
  { name: 'namespace', value: 'NS', default: 'tinkerbell', help: "Tinkerbell's namespace" },
  { name: 'reconcile-interval', value: 'SEC', default: '30', help: 'between passes; an attestation that asks for a run starts one at once' },
  {
    name: 'lease-duration',
    value: 'SEC',
    default: '60',
    help: "how long the Lease outlives its holder's last pass before another fleetd may take over (a clean stop releases it at once); longer than --reconcile-interval",
  },
  {
    name: 'hookos-wait',
    value: 'SEC',
    default: '600',
    help: "how long a machine that attested with an intake's code still waits in HookOS, so that its run starts there with no power cycle",
  },
  {
    name: 'base-url',
    value: 'URL',
    help: "fleetd's URL as the nodes reach it (the kernel command line's fleet_attest_url); default: the URL it listens on, unless that is a wildcard address",
  },
  { name: 'seed-url', value: 'URL', help: 'where a disk-image node fetches its seed: <URL>/<code> (default <base-url>/v1/seed)' },
  {
    name: 'config-url',
    value: 'URL',
    help: 'where an installed Talos node fetches its config: talos.config=<URL>/<code> (default <base-url>/v1/config); without either, no run starts (the journal says so)',
  },
  { name: 'class-inputs', value: 'DIR', help: "each class's inputs (fleet render-class-inputs): a Talos class's, a disk-image class's seed's" },
  { name: 'target-kubeconfig', value: 'FILE', help: 'the cluster nodes join: each node gets its own bootstrap token there' },
  { name: 'config-ttl', value: 'SEC', default: '3600', env: 'FLEET_CONFIG_TTL', help: 'how long a rendered config or seed waits for its node' },
  {
    name: 'syslog-listen',
    value: 'HOST:PORT|off',
    default: '0.0.0.0:514',
    help: "receive HookOS's syslog over UDP into the journal ([::]:514 for IPv4 and IPv6; off: no receiver)",
  },
  { name: 'journal-socket', value: 'PATH', default: DEFAULT_JOURNAL_SOCKET, help: "journald's native socket" },
  { name: 'help', help: 'print this and exit' },
] as const satisfies readonly ServeOption[];

export type ServeOptionName = (typeof SERVE_OPTIONS)[number]['name'];

/** parseArgs' options: a value option is a string (its default applied later, by serve-config.ts), a switch a boolean. */
export function parseArgsOptions(): Record<ServeOptionName, { type: 'string' | 'boolean' }> {
  return Object.fromEntries(SERVE_OPTIONS.map((o) => [o.name, { type: 'value' in o ? 'string' : 'boolean' }])) as Record<
    ServeOptionName,
    { type: 'string' | 'boolean' }
  >;
}

/** `fleet serve --help`. */
export function serveUsage(): string {
  const lines = SERVE_OPTIONS.map((o: ServeOption) => {
    const flag = `  --${o.name}${o.value ? ` ${o.value}` : ''}`;
    const extra = [o.default !== undefined ? `default ${o.default}` : '', o.env ? `or ${o.env}` : ''].filter(Boolean).join('; ');
    return `${flag}\n      ${o.help}${extra ? ` (${extra})` : ''}`;
  });
  return ['usage: fleet serve --state DIR (--nodes FILE | --netbox-url URL ...) [options]', ...lines, '  FLEET_LOG_LEVEL: the request log (default warn)'].join(
    '\n',
  );
}

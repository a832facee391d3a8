/**
 * `fleet serve`'s options (options.ts): `fleet serve --help` and docs/reference/serve.md print
 * them, and serve-config.ts turns what was given into the typed config the parts get.
 */
import { type OptionDef, optionsUsage } from '../../shared/options.js';
import { DEFAULT_SYSLOG_LISTEN, JOURNAL_SOCKET_OPTION, SYSLOG_LISTEN_HELP } from './syslog-options.js';

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
  {
    name: 'address-group-v4',
    value: 'PREFIX',
    default: '24',
    help: 'the IPv4 prefix one host may fill with aliases: connections, sessions and waiting claims are capped per such group as well as per address',
  },
  { name: 'address-group-v6', value: 'PREFIX', default: '64', help: 'the same for IPv6 (a host may use any address of its /64)' },
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
    help: "fleetd's URL as the nodes reach it (the kernel command line's fleet_attest_url); default: the URL it listens on, unless that is a wildcard or loopback address, which no node reaches",
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
    default: DEFAULT_SYSLOG_LISTEN,
    help: `${SYSLOG_LISTEN_HELP} (off: no receiver, as when fleet syslog runs it apart)`,
  },
  JOURNAL_SOCKET_OPTION,
  { name: 'help', help: 'print this and exit' },
] as const satisfies readonly OptionDef[];

export type ServeOptionName = (typeof SERVE_OPTIONS)[number]['name'];

export const SERVE_SYNOPSIS = 'fleet serve --state DIR (--nodes FILE | --netbox-url URL ...) [options]';
export const SERVE_NOTES = ['FLEET_LOG_LEVEL: the request log (default warn)'];

/** `fleet serve --help`. */
export const serveUsage = (): string => optionsUsage(SERVE_SYNOPSIS, SERVE_OPTIONS, SERVE_NOTES);

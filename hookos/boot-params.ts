/**
 * The HookOS kernel command line, described once. The UKI's .cmdline, the iPXE menu and the
 * Hardware iPXE script all carry the line `kernelCmdline` makes from one BootConfig (hookos/lab.yaml
 * for the lab), so the signed UKI and what iPXE passes cannot drift apart.
 *
 * Who reads each parameter (upstream sources read for this file):
 * - grpc_authority, tinkerbell_tls, tinkerbell_insecure_tls, tink_worker_image, worker_id:
 *   hook-bootkit (tinkerbell/hook, images/hook-bootkit/main.go, parseCmdLine). It starts the
 *   tink_worker_image container and hands it the others as TINKERBELL_GRPC_AUTHORITY,
 *   TINKERBELL_TLS, TINKERBELL_INSECURE_TLS and WORKER_ID/ID, which tink-agent reads
 *   (tinkerbell/tinkerbell, cmd/agent/flags.go, SetFromEnvLegacy). See hook-bootkit.ts.
 * - syslog_host: hook-docker (tinkerbell/hook, images/hook-docker/main.go) points Docker's syslog
 *   log driver at udp://<syslog_host>:514, so every container's output reaches spore's journal.
 * - console=: the kernel; the last one named is /dev/console.
 * - fleet_attest_url, fleet_ntp_server: fleet's agent (agent/boot/cmdline.ts).
 * Smee's own HookOS script passes the same names (tinkerbell/smee, internal/ipxe/script/hook.go:
 * syslog_host, grpc_authority, tinkerbell_tls, worker_id, console=tty0 console=ttyS1,115200).
 */
import { parse } from 'yaml';
import { FleetError } from '../shared/errors.js';

export interface BootConfig {
  /** The verifier the agent attests to (https). */
  fleet_attest_url: string;
  /** host or host:port whose SNTP answer sets the clock before attestation. */
  fleet_ntp_server: string;
  /** Where HookOS's Docker sends every container's output (UDP 514). */
  syslog_host: string;
  /** The Tink server, host:port. */
  grpc_authority: string;
  /** true in the lab: tink-agent verifies the Tink server, so no host can stand in for it. */
  tinkerbell_tls: boolean;
  /** The image hook-bootkit starts: images/tink-agent-autoid, with a tag or digest. */
  tink_worker_image: string;
  /** console= values; the last is /dev/console, where the agent's lines show. */
  console: string[];
  /** Further kernel parameters (key=value or a bare flag), e.g. a driver's. */
  extra: string[];
  /** Where nginx serves the signed HookOS UKI; the menu and the Hardware script chain it. */
  uki_url: string;
  /** Seconds the menu waits before it boots HookOS. */
  menu_timeout_s: number;
}

const KEYS = [
  'fleet_attest_url',
  'fleet_ntp_server',
  'syslog_host',
  'grpc_authority',
  'tinkerbell_tls',
  'tink_worker_image',
  'console',
  'extra',
  'uki_url',
  'menu_timeout_s',
] as const satisfies ReadonlyArray<keyof BootConfig>;

/** Parameters the generator writes itself: an `extra` entry may not set them a second time. */
const WRITTEN = new Set([
  'fleet_attest_url',
  'fleet_ntp_server',
  'syslog_host',
  'grpc_authority',
  'tinkerbell_tls',
  'tinkerbell_insecure_tls',
  'tink_worker_image',
  'console',
  'worker_id',
  'BOOTIF',
]);

const fail = (message: string): never => {
  throw new FleetError('hookos-config', message);
};

/**
 * A value must stay one word everywhere it goes: the kernel splits on spaces and reads quotes,
 * hook-bootkit and hook-docker split /proc/cmdline on single spaces, and iPXE expands `$`, reads
 * quotes and backslashes, and separates commands with ;, && and ||.
 */
function checkWord(key: string, value: string): void {
  const bad: Array<[RegExp, string]> = [
    [/^$/, 'nothing'],
    [/\s/, 'a space'],
    [/["'`]/, 'a quote'],
    [/\\/, 'a backslash'],
    [/\$/, 'a $'],
    [/[;&|]/, 'a ; & or |'],
    [/[^\x21-\x7e]/, 'a character outside printable ASCII'],
  ];
  for (const [re, what] of bad) {
    if (re.test(value)) {
      fail(
        `${key}: ${JSON.stringify(value)} holds ${what}; a kernel command line value must be one word (the kernel and hook-bootkit split on spaces, iPXE expands $, reads quotes and backslashes, and separates commands with ; & |)`,
      );
    }
  }
}

const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const HOST = new RegExp(`^(?:${LABEL}(?:\\.${LABEL})*|\\d{1,3}(?:\\.\\d{1,3}){3}|\\[[0-9A-Fa-f:.]+\\])$`);

function hostPort(key: string, value: string, portRequired: boolean): void {
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(value);
  const port = m?.[2] === undefined ? null : Number(m[2]);
  if (!m || !HOST.test(m[1]!) || (port !== null && (port < 1 || port > 65535)) || (portRequired && port === null)) {
    fail(`${key}: ${value} is not ${portRequired ? 'host:port' : 'a host or host:port'}`);
  }
}

function url(key: string, value: string, schemes: string[]): void {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return fail(`${key}: ${value} is not a URL`);
  }
  if (!schemes.includes(u.protocol)) fail(`${key}: ${value} is not ${schemes.map((s) => s.replace(':', '')).join(' or ')}`);
}

/** An image reference that names its version: name:tag (not latest) or name@sha256:digest. */
function imageRef(key: string, value: string): void {
  // The lazy name leaves a trailing :tag to the tag group; a tag holds no / or :, so a registry port stays in the name.
  const m = /^([a-z0-9][a-z0-9._\-/:]*?)(?::([\w][\w.-]{0,127}))?(?:@(sha256:[0-9a-f]{64}))?$/.exec(value);
  if (!m) return fail(`${key}: ${value} is not an image reference (registry/name:tag or registry/name@sha256:...)`);
  if (!m[3] && (!m[2] || m[2] === 'latest')) {
    fail(`${key}: ${value} names no version; give a tag other than latest, or a digest, so every boot runs the image that was reviewed`);
  }
}

const CONSOLE = /^(?:tty[A-Za-z]*\d*|hvc\d+|ttyS\d+,\d+(?:[noe]\d?)?|ttyAMA\d+(?:,\d+)?|ttyUSB\d+(?:,\d+)?)$/;

function validate(c: BootConfig): BootConfig {
  for (const key of ['fleet_attest_url', 'fleet_ntp_server', 'syslog_host', 'grpc_authority', 'tink_worker_image', 'uki_url'] as const) {
    if (typeof c[key] !== 'string') fail(`${key} must be a string`);
    checkWord(key, c[key]);
  }
  url('fleet_attest_url', c.fleet_attest_url, ['https:']);
  hostPort('fleet_ntp_server', c.fleet_ntp_server, false);
  hostPort('syslog_host', c.syslog_host, false);
  if (c.syslog_host.includes(':') && !c.syslog_host.startsWith('[')) fail(`syslog_host: ${c.syslog_host} names a port; hook-docker always sends to port 514`);
  hostPort('grpc_authority', c.grpc_authority, true);
  imageRef('tink_worker_image', c.tink_worker_image);
  url('uki_url', c.uki_url, ['http:', 'https:']);
  if (typeof c.tinkerbell_tls !== 'boolean') fail('tinkerbell_tls must be true or false');
  if (!Array.isArray(c.console) || c.console.length === 0) fail('console must list at least one console (e.g. [tty0])');
  for (const con of c.console) {
    checkWord('console', String(con));
    if (!CONSOLE.test(String(con))) fail(`console: ${String(con)} is not a console the kernel knows (tty0, ttyS1,115200, hvc0, ...)`);
  }
  if (!Array.isArray(c.extra)) fail('extra must be a list (it may be empty: [])');
  for (const p of c.extra) {
    checkWord('extra', String(p));
    const key = String(p).split('=', 1)[0]!;
    if (WRITTEN.has(key))
      fail(
        `extra: ${String(p)} sets ${key}, which the generator writes itself${KEYS.includes(key as keyof BootConfig) ? `; set it with its own field ${key}` : ''}`,
      );
  }
  if (!Number.isInteger(c.menu_timeout_s) || c.menu_timeout_s < 0 || c.menu_timeout_s > 600)
    fail('menu_timeout_s must be a whole number of seconds from 0 to 600');
  return c;
}

/** `${NAME}` in the config's strings: what a site sets at generation (`--set NAME=VALUE`). */
const PLACEHOLDER = /\$\{([A-Z][A-Z0-9_]*)\}/g;

function substitute(value: unknown, params: ReadonlyMap<string, string>, used: Set<string>, missing: Set<string>): unknown {
  if (typeof value === 'string') {
    return value.replace(PLACEHOLDER, (whole, name: string) => {
      const v = params.get(name);
      if (v === undefined) {
        missing.add(name);
        return whole;
      }
      used.add(name);
      return v;
    });
  }
  return Array.isArray(value) ? value.map((v) => substitute(v, params, used, missing)) : value;
}

/**
 * A BootConfig from YAML text (`source` names it in errors), with each `${NAME}` replaced by
 * `params`. Unknown or missing fields, a placeholder left unset, a parameter the file never names,
 * and any value that is not one safe word are refused with a message naming the field.
 */
export function loadBootConfig(text: string, params: ReadonlyMap<string, string>, source: string): BootConfig {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    throw new FleetError('hookos-config', `${source}: not YAML: ${(err as Error).message}`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) fail(`${source}: expected a mapping of ${KEYS.join(', ')}`);
  const raw = doc as Record<string, unknown>;
  const unknown = Object.keys(raw).filter((k) => !KEYS.includes(k as keyof BootConfig));
  if (unknown.length) fail(`${source}: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (known: ${KEYS.join(', ')})`);
  const absent = KEYS.filter((k) => !(k in raw));
  if (absent.length) fail(`${source}: missing ${absent.join(', ')}`);
  const used = new Set<string>();
  const missing = new Set<string>();
  const filled = Object.fromEntries(KEYS.map((k) => [k, substitute(raw[k], params, used, missing)]));
  if (missing.size) fail(`${source} names ${[...missing].map((n) => `\${${n}}`).join(', ')}; give ${[...missing].map((n) => `--set ${n}=VALUE`).join(' ')}`);
  const unused = [...params.keys()].filter((n) => !used.has(n));
  if (unused.length) fail(`${source} names no \${${unused[0]}}; --set ${unused[0]} would change nothing (a typo?)`);
  try {
    return validate(filled as unknown as BootConfig);
  } catch (err) {
    throw new FleetError('hookos-config', `${source}: ${(err as Error).message}`);
  }
}

/**
 * The command line the UKI carries, one space between parameters. The fleet_ parameters come last:
 * older hook-bootkit keeps /proc/cmdline's trailing newline on the last value it reads.
 */
export function kernelCmdline(c: BootConfig): string {
  return [
    ...c.console.map((con) => `console=${con}`),
    ...c.extra,
    `syslog_host=${c.syslog_host}`,
    `grpc_authority=${c.grpc_authority}`,
    `tinkerbell_tls=${c.tinkerbell_tls}`,
    // Never insecure: the point of TLS here is that no host can stand in for the Tink server.
    'tinkerbell_insecure_tls=false',
    `tink_worker_image=${c.tink_worker_image}`,
    `fleet_ntp_server=${c.fleet_ntp_server}`,
    `fleet_attest_url=${c.fleet_attest_url}`,
  ].join(' ');
}

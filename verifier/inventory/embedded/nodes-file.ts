import { hostNameProblem } from '../../../shared/net/host-name.js';
import { printable } from '../../../shared/text/terminal.js';
import { isIP } from 'node:net';
import { CORE_SCHEMA, load } from 'js-yaml';
import { EK_HASH_PATTERN } from '../../../shared/ek/hash.js';
import { errorMessage } from '../../../shared/errors.js';
import { PAYLOADS, type Payload } from '../../../shared/payloads.js';
import type { EkKind } from '../../../shared/wire/schemas.js';
import { DEFAULT_BOOT_POLICY, type BootPolicy } from '../../attest/boot-policy.js';
import type { Binding } from '../device.js';

export interface NodeClass {
  name: string;
  payload: Payload;
  /** talos: the installer image. */
  installerImage?: string;
  /** Disk-image payloads: the image and its SHA-256. */
  imageUrl?: string;
  imageSha256?: string;
  controlPlane: boolean;
  /** Which boots of its nodes may receive an install code; absent, any (DEFAULT_BOOT_POLICY). */
  boot?: BootPolicy;
}

/** One entry under `nodes:`, as the operator declared it. */
export interface NodeDecl {
  hostname: string;
  serial: string;
  model?: string;
  className?: string;
  switchPort?: string;
  address?: string;
  bmcType?: string;
  disk?: string;
  diskSerial?: string;
  binding: Binding;
}

export interface NodesFile {
  /** The node network in effect (the file's `node_network:` or the caller's), when one is named and valid. */
  nodeNetwork?: string;
  models: string[];
  classes: Map<string, NodeClass>;
  nodes: NodeDecl[];
}

export interface Problem {
  /** The node (or `classes.<name>`, `models`) the problem is in; absent for the file as a whole. */
  where?: string;
  message: string;
}

const NODE_FIELDS = ['model', 'serial', 'class', 'switch_port', 'address', 'bmc_type', 'disk', 'disk_serial', 'approved_ek_rsa2048', 'approved_ek_eccp256'];
const EK_FIELDS: Array<[string, EkKind]> = [
  ['approved_ek_rsa2048', 'rsa2048'],
  ['approved_ek_eccp256', 'eccp256'],
];
/** Fields no two nodes may share, as the plan step refuses them (addresses compared by IP, prefix aside). */
const UNIQUE: Array<[string, string]> = [
  ['serial', 'serial'],
  ['address', 'address'],
  ['switch_port', 'switch port'],
  ['disk_serial', 'disk serial'],
];

type Map_ = Record<string, unknown>;
const isMap = (v: unknown): v is Map_ => typeof v === 'object' && v !== null && !Array.isArray(v);

function text(v: unknown): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  return typeof v === 'string' || typeof v === 'number' ? String(v) : undefined;
}

/**
 * Reads the lab's nodes file: `models` (keyed by model), `classes` (keyed by class: a payload and
 * its parameters) and `nodes` (keyed by host name). Returns every problem the runbook's plan step
 * refuses, each with its node: an unknown model or class; an address, switch port, serial, disk
 * serial or approved EK another node holds; an approved EK hash that is not 64 lowercase hex.
 * A file with problems must not be served: the caller refuses it whole.
 *
 * The node network (the runbook's K8S_NODE_CIDR) may be named by the file's top-level
 * `node_network:` or by the caller (`opts.nodeNetwork`, from `--node-network CIDR`); naming it
 * in both is fine only when they name the same network, else it is a problem. With a network
 * named, an address may be written bare (`10.40.0.21`) and is read as `10.40.0.21/<its prefix>`;
 * every address must lie inside it and carry its prefix length. Without one, a bare address is a
 * problem. A malformed or conflicting network is a problem, and addresses are then not checked
 * against it. A file without `nodes:` is a problem (an empty or truncated file), unless it is a
 * class catalogue (`opts.classesOnly`).
 */
export function readNodesFile(
  source: string,
  name = 'nodes file',
  opts: { nodeNetwork?: string; classesOnly?: boolean } = {},
): { file: NodesFile; problems: Problem[] } {
  const problems: Problem[] = [];
  const file: NodesFile = { models: [], classes: new Map(), nodes: [] };
  let root: unknown;
  try {
    // js-yaml: an order of magnitude faster than the yaml library at 10,000 nodes, its duplicate-key
    // check is linear, and aliases stay references (no expansion). The core schema: no timestamps,
    // no merge keys, plain scalars as YAML 1.2 reads them.
    root = load(source, { schema: CORE_SCHEMA }) ?? {};
  } catch (err) {
    return { file, problems: [{ message: `${name} is not valid YAML: ${errorMessage(err).split('\n')[0]}` }] };
  }
  if (!isMap(root)) return { file, problems: [{ message: `${name} is not a map of models, classes and nodes` }] };
  for (const key of Object.keys(root))
    if (!['node_network', 'models', 'classes', 'nodes'].includes(key)) problems.push({ message: `unknown top-level key ${key}` });

  const net = nodeNetwork(root.node_network, opts.nodeNetwork, problems);
  if (net.network) file.nodeNetwork = net.network.text;

  const models = root.models ?? {};
  if (!isMap(models)) problems.push({ where: 'models', message: 'models is not a map keyed by model name' });
  else file.models = Object.keys(models);

  const classes = root.classes ?? {};
  if (!isMap(classes)) problems.push({ where: 'classes', message: 'classes is not a map keyed by class name' });
  else for (const [cname, c] of Object.entries(classes)) readClass(cname, c, file, problems);

  // An empty or truncated file must not read as an inventory of no nodes: none is said as `nodes: {}`.
  if ((root.nodes === undefined || root.nodes === null) && !opts.classesOnly)
    problems.push({ where: 'nodes', message: `${name} declares no nodes: is it whole? (write nodes: {} to declare none)` });
  const nodes = root.nodes ?? {};
  if (!isMap(nodes)) {
    problems.push({ where: 'nodes', message: 'nodes is not a map keyed by host name' });
    return { file, problems };
  }
  const holders = new Map<string, string>(); // "<field>=<value>" → host name
  for (const [hostname, raw] of Object.entries(nodes)) {
    const notHostName = hostNameProblem(hostname);
    if (notHostName) {
      problems.push({ where: printable(JSON.stringify(hostname)), message: `is not a host name (RFC 1123): ${notHostName}` });
      continue;
    }
    const node = readNode(hostname, raw, file, net, problems);
    if (!node) continue;
    const claim = (field: string, label: string, value: string | undefined, id = value) => {
      if (value === undefined) return;
      const key = `${field}=${id}`;
      const other = holders.get(key);
      if (other) problems.push({ where: hostname, message: `${label} ${value} is held by ${other}` });
      else holders.set(key, hostname);
    };
    for (const [field, label] of UNIQUE) {
      const value = text((raw as Map_)[field]);
      claim(field, label, value, field === 'address' && value !== undefined ? (ipKey(value.split('/')[0] ?? '') ?? value) : value);
    }
    for (const [field] of EK_FIELDS) claim('approved_ek', 'approved EK', text((raw as Map_)[field]));
    file.nodes.push(node);
  }
  return { file, problems };
}

function readClass(name: string, raw: unknown, file: NodesFile, problems: Problem[]): void {
  const where = `classes.${name}`;
  if (!isMap(raw)) return void problems.push({ where, message: 'is not a map' });
  const payload = text(raw.payload);
  if (!payload || !(PAYLOADS as readonly string[]).includes(payload)) {
    return void problems.push({ where, message: `payload ${payload ?? '(none)'} is not one of ${PAYLOADS.join(', ')}` });
  }
  const c: NodeClass = {
    name,
    payload: payload as Payload,
    controlPlane: raw.control_plane === true || name === 'controlplane',
    boot: readBootPolicy(raw, where, problems),
  };
  if (raw.control_plane !== undefined && typeof raw.control_plane !== 'boolean') problems.push({ where, message: 'control_plane is not true or false' });
  if (payload === 'talos') {
    c.installerImage = text(raw.installer_image);
    if (!c.installerImage) problems.push({ where, message: 'a talos class needs installer_image' });
  } else {
    c.imageUrl = text(raw.image_url);
    c.imageSha256 = text(raw.image_sha256);
    if (!c.imageUrl) problems.push({ where, message: `a ${payload} class needs image_url` });
    if (!c.imageSha256 || !/^[0-9a-f]{64}$/.test(c.imageSha256))
      problems.push({ where, message: `a ${payload} class needs image_sha256, 64 lowercase hex characters` });
  }
  file.classes.set(name, c);
}

const DIGEST = /^[0-9a-f]{64}$/;

/** `secure_boot: required` and `hookos_images: [<Authenticode SHA-256>, ...]`, each optional. */
function readBootPolicy(raw: Map_, where: string, problems: Problem[]): BootPolicy {
  const policy: BootPolicy = { ...DEFAULT_BOOT_POLICY };
  if (raw.secure_boot !== undefined) {
    if (raw.secure_boot === 'required' || raw.secure_boot === 'recorded') policy.secureBoot = raw.secure_boot;
    else problems.push({ where, message: 'secure_boot is not required or recorded' });
  }
  if (raw.hookos_images !== undefined) {
    const images = raw.hookos_images;
    if (!Array.isArray(images) || images.length === 0 || !images.every((d) => typeof d === 'string' && DIGEST.test(d)))
      problems.push({ where, message: 'hookos_images is not a list of SHA-256 digests, 64 lowercase hex characters each (fleet hookos digest prints them)' });
    else policy.hookosImages = images as string[];
  }
  return policy;
}

function readNode(hostname: string, raw: unknown, file: NodesFile, net: NetworkInEffect, problems: Problem[]): NodeDecl | null {
  if (!isMap(raw)) {
    problems.push({ where: hostname, message: 'is not a map of fields' });
    return null;
  }
  const at = (message: string) => problems.push({ where: hostname, message });
  for (const key of Object.keys(raw)) if (!NODE_FIELDS.includes(key)) at(`unknown field ${key}`);
  for (const key of NODE_FIELDS) if (raw[key] !== undefined && raw[key] !== null && text(raw[key]) === undefined) at(`${key} is not a string`);
  const serial = text(raw.serial);
  if (!serial) {
    at('has no serial');
    return null;
  }
  const node: NodeDecl = { hostname, serial, binding: {} };
  node.model = text(raw.model);
  if (!node.model) at('has no model');
  else if (!file.models.includes(node.model)) at(`unknown model ${node.model}`);
  node.className = text(raw.class);
  if (!node.className) at('has no class');
  else if (!file.classes.has(node.className)) at(`unknown class ${node.className}`);
  node.switchPort = text(raw.switch_port);
  node.address = readAddress(text(raw.address), net, at);
  node.bmcType = text(raw.bmc_type);
  node.disk = text(raw.disk);
  node.diskSerial = text(raw.disk_serial);
  for (const [field, kind] of EK_FIELDS) {
    const h = text(raw[field]);
    if (h === undefined) continue;
    if (!EK_HASH_PATTERN.test(h)) at(`${field} is not 64 lowercase hex characters`);
    else node.binding[kind] = h;
  }
  return node;
}

interface Network {
  /** As written. */
  text: string;
  family: 4 | 6;
  bits: bigint;
  prefix: number;
}
/** The network addresses are checked against; `named` without `network`: named, but malformed or in conflict. */
interface NetworkInEffect {
  named: boolean;
  network?: Network;
}

const NO_PREFIX_HELP = 'or name the node network (node_network: in the file, or fleet serve --node-network CIDR)';

/** The file's `node_network:` and the caller's network, each checked, and checked against each other. */
function nodeNetwork(inFile: unknown, fromCaller: string | undefined, problems: Problem[]): NetworkInEffect {
  const where = 'node_network';
  // Never serialised whole: an alias may stand for a structure that expands without bound.
  const fileText =
    inFile === undefined || inFile === null
      ? undefined
      : typeof inFile === 'string'
        ? inFile
        : Array.isArray(inFile)
          ? '[...]'
          : isMap(inFile)
            ? '{...}'
            : String(inFile);
  const fileNet = fileText === undefined ? undefined : parseNetwork(fileText, 'node_network', (message) => problems.push({ where, message }));
  const callerNet = fromCaller === undefined ? undefined : parseNetwork(fromCaller, '--node-network', (message) => problems.push({ message }));
  const named = fileText !== undefined || fromCaller !== undefined;
  if (fileNet && callerNet && (fileNet.family !== callerNet.family || fileNet.bits !== callerNet.bits || fileNet.prefix !== callerNet.prefix)) {
    problems.push({
      where,
      message: `node_network ${fileNet.text} differs from --node-network ${callerNet.text}: name the node network once, or the same network in both`,
    });
    return { named };
  }
  if (fileText !== undefined && !fileNet) return { named };
  if (fromCaller !== undefined && !callerNet) return { named };
  return { named, network: fileNet ?? callerNet };
}

function parseNetwork(s: string, label: string, problem: (message: string) => void): Network | undefined {
  if (!isCidr(s)) return void problem(`${label} ${s} is not a network with a prefix length (10.40.0.0/24)`);
  const [ip = '', len = ''] = s.split('/');
  const family = isIP(ip) as 4 | 6;
  const prefix = Number(len);
  const bits = ipBits(ip);
  const host = (1n << BigInt((family === 4 ? 32 : 128) - prefix)) - 1n;
  if ((bits & host) !== 0n) return void problem(`${label} ${s} has host bits set: the network is ${formatIp(bits & ~host, family)}/${prefix}`);
  return { text: s, family, bits, prefix };
}

/** A node's address as NodeDecl holds it: with a prefix length, inside the node network when one is named. */
function readAddress(address: string | undefined, net: NetworkInEffect, at: (message: string) => void): string | undefined {
  if (address === undefined) return undefined;
  const n = net.network;
  if (!address.includes('/')) {
    if (!isIP(address)) {
      at(`address ${address} is not an IP address (192.0.2.10, or 192.0.2.10/24)`);
      return address;
    }
    if (!n) {
      if (!net.named) at(`address ${address} has no prefix length: write it as ${address}/<prefix>, ${NO_PREFIX_HELP}`);
      return address;
    }
    if (inside(address, n)) return `${address}/${n.prefix}`;
    at(`address ${address} is outside the node network ${n.text}`);
    return address;
  }
  if (!isCidr(address)) {
    at(`address ${address} is not an address with a prefix length (192.0.2.10/24)`);
    return address;
  }
  if (!n) return address;
  const [ip = '', len = ''] = address.split('/');
  if (!inside(ip, n)) at(`address ${address} is outside the node network ${n.text}`);
  if (Number(len) !== n.prefix)
    at(`address ${address} has prefix length ${len}, but the node network ${n.text} has ${n.prefix}: write ${ip}/${n.prefix}, or leave the prefix off`);
  return address;
}

function inside(ip: string, n: Network): boolean {
  if (isIP(ip) !== n.family) return false;
  const width = n.family === 4 ? 32 : 128;
  return ipBits(ip) >> BigInt(width - n.prefix) === n.bits >> BigInt(width - n.prefix);
}

/** An IP address's identity, whatever its spelling (2001:db8::1 and 2001:db8:0::1 are one); undefined if not an IP. */
function ipKey(ip: string): string | undefined {
  const family = isIP(ip);
  return family ? `${family}:${ipBits(ip).toString(16)}` : undefined;
}

/** The address as a number; `ip` must pass isIP. */
function ipBits(ip: string): bigint {
  if (isIP(ip) === 4) return ip.split('.').reduce((acc, octet) => (acc << 8n) | BigInt(Number(octet)), 0n);
  let s = ip.split('%')[0] ?? '';
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(s)?.[1];
  if (v4) {
    const b = ipBits(v4);
    s = `${s.slice(0, -v4.length)}${(b >> 16n).toString(16)}:${(b & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = s.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(`0x${g}`), 0n);
}

function formatIp(bits: bigint, family: 4 | 6): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((shift) => String((bits >> shift) & 0xffn)).join('.');
  return Array.from({ length: 8 }, (_, i) => ((bits >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(':'); // uncompressed, still valid
}

function isCidr(s: string): boolean {
  const [ip, len, ...rest] = s.split('/');
  const family = isIP(ip ?? '');
  const n = Number(len);
  return rest.length === 0 && family !== 0 && Number.isInteger(n) && n >= 0 && n <= (family === 4 ? 32 : 128) && /^\d+$/.test(len ?? '');
}

import { isIP } from 'node:net';
import { parseDocument } from 'yaml';
import { EK_HASH_PATTERN } from '../../../shared/ek/hash.js';
import type { EkKind } from '../../../shared/wire/schemas.js';
import type { Binding } from '../device.js';

export const PAYLOADS = ['talos', 'nixos-image', 'alpine-image', 'cloud-init-nocloud'] as const;
export type Payload = (typeof PAYLOADS)[number];

export interface NodeClass {
  name: string;
  payload: Payload;
  /** talos: the installer image. */
  installerImage?: string;
  /** Disk-image payloads: the image and its SHA-256. */
  imageUrl?: string;
  imageSha256?: string;
  controlPlane: boolean;
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
/** Fields no two nodes may share, as the plan step refuses them. */
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
 */
export function readNodesFile(source: string, name = 'nodes file'): { file: NodesFile; problems: Problem[] } {
  const problems: Problem[] = [];
  const file: NodesFile = { models: [], classes: new Map(), nodes: [] };
  const doc = parseDocument(source, { uniqueKeys: true });
  for (const e of doc.errors) problems.push({ message: `${name} is not valid YAML: ${e.message.split('\n')[0]}` });
  if (doc.errors.length) return { file, problems };
  const root: unknown = doc.toJS() ?? {};
  if (!isMap(root)) return { file, problems: [{ message: `${name} is not a map of models, classes and nodes` }] };
  for (const key of Object.keys(root)) if (!['models', 'classes', 'nodes'].includes(key)) problems.push({ message: `unknown top-level key ${key}` });

  const models = root.models ?? {};
  if (!isMap(models)) problems.push({ where: 'models', message: 'models is not a map keyed by model name' });
  else file.models = Object.keys(models);

  const classes = root.classes ?? {};
  if (!isMap(classes)) problems.push({ where: 'classes', message: 'classes is not a map keyed by class name' });
  else for (const [cname, c] of Object.entries(classes)) readClass(cname, c, file, problems);

  const nodes = root.nodes ?? {};
  if (!isMap(nodes)) {
    problems.push({ where: 'nodes', message: 'nodes is not a map keyed by host name' });
    return { file, problems };
  }
  const holders = new Map<string, string>(); // "<field>=<value>" → host name
  for (const [hostname, raw] of Object.entries(nodes)) {
    const node = readNode(hostname, raw, file, problems);
    if (!node) continue;
    const claim = (field: string, label: string, value: string | undefined) => {
      if (value === undefined) return;
      const key = `${field}=${value}`;
      const other = holders.get(key);
      if (other) problems.push({ where: hostname, message: `${label} ${value} is held by ${other}` });
      else holders.set(key, hostname);
    };
    for (const [field, label] of UNIQUE) claim(field, label, text((raw as Map_)[field]));
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
  const c: NodeClass = { name, payload: payload as Payload, controlPlane: raw.control_plane === true || name === 'controlplane' };
  if (raw.control_plane !== undefined && typeof raw.control_plane !== 'boolean') problems.push({ where, message: 'control_plane is not true or false' });
  if (payload === 'talos') {
    c.installerImage = text(raw.installer_image);
    if (!c.installerImage) problems.push({ where, message: 'a talos class needs installer_image' });
  } else {
    c.imageUrl = text(raw.image_url);
    c.imageSha256 = text(raw.image_sha256);
    if (!c.imageUrl) problems.push({ where, message: `a ${payload} class needs image_url` });
    if (!c.imageSha256 || !/^[0-9a-f]{64}$/.test(c.imageSha256)) problems.push({ where, message: `a ${payload} class needs image_sha256, 64 lowercase hex characters` });
  }
  file.classes.set(name, c);
}

function readNode(hostname: string, raw: unknown, file: NodesFile, problems: Problem[]): NodeDecl | null {
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
  node.address = text(raw.address);
  if (node.address && !isCidr(node.address)) at(`address ${node.address} is not an address with a prefix length (192.0.2.10/24)`);
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

function isCidr(s: string): boolean {
  const [ip, len, ...rest] = s.split('/');
  const family = isIP(ip ?? '');
  const n = Number(len);
  return rest.length === 0 && family !== 0 && Number.isInteger(n) && n >= 0 && n <= (family === 4 ? 32 : 128) && /^\d+$/.test(len ?? '');
}

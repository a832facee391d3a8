import { parse as parseYaml } from 'yaml';
import { FleetError, errorMessage } from '../../shared/errors.js';
import { EK_HASH_PATTERN } from '../../shared/ek/hash.js';
import type { NodeEntry } from './inventory.js';

/**
 * Reads the lab's nodes file (`nodes:` a list of entries with hostname, serial,
 * approved_ek_rsa2048, approved_ek_eccp256, ...). Refuses, naming the entry, what the runbook's
 * plan step refuses: a missing host name or serial, a serial or approved EK another node holds,
 * an approved EK hash that is not 64 lowercase hex characters.
 */
export function parseNodesFile(text: string, source = 'nodes file'): NodeEntry[] {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new FleetError('nodes-invalid', `${source} is not valid YAML: ${errorMessage(err)}`);
  }
  const list = (doc as { nodes?: unknown } | null)?.nodes ?? [];
  if (!Array.isArray(list)) throw new FleetError('nodes-invalid', `${source}: nodes is not a list`);
  const serials = new Map<string, string>();
  const hostnames = new Set<string>();
  const hashes = new Map<string, string>();
  return list.map((raw, i) => {
    const e = (raw ?? {}) as Record<string, unknown>;
    const where = `${source}: nodes[${i}]`;
    const str = (k: string): string | undefined => {
      const v = e[k];
      if (v === undefined || v === null || v === '') return undefined;
      if (typeof v !== 'string' && typeof v !== 'number') throw new FleetError('nodes-invalid', `${where}: ${k} is not a string`);
      return String(v);
    };
    const hostname = str('hostname');
    const serial = str('serial');
    if (!hostname) throw new FleetError('nodes-invalid', `${where} has no hostname`);
    if (!serial) throw new FleetError('nodes-invalid', `${where} (${hostname}) has no serial`);
    if (hostnames.has(hostname)) throw new FleetError('nodes-invalid', `${where}: hostname ${hostname} is declared twice`);
    const other = serials.get(serial);
    if (other) throw new FleetError('nodes-invalid', `${where} (${hostname}): serial ${serial} is held by ${other}`);
    hostnames.add(hostname);
    serials.set(serial, hostname);
    const binding: NodeEntry['binding'] = {};
    for (const [field, kind] of [['approved_ek_rsa2048', 'rsa2048'], ['approved_ek_eccp256', 'eccp256']] as const) {
      const h = str(field);
      if (h === undefined) continue;
      if (!EK_HASH_PATTERN.test(h)) throw new FleetError('nodes-invalid', `${where} (${hostname}): ${field} is not 64 lowercase hex characters`);
      const holder = hashes.get(h);
      if (holder) throw new FleetError('nodes-invalid', `${where} (${hostname}): ${field} is an approved EK ${holder} holds`);
      hashes.set(h, hostname);
      binding[kind] = h;
    }
    const provision = e['provision'];
    if (provision !== undefined && typeof provision !== 'boolean') throw new FleetError('nodes-invalid', `${where} (${hostname}): provision is not true or false`);
    return { hostname, serial, binding, provisionWaiting: provision === true };
  });
}

import { readFile } from 'node:fs/promises';
import { FleetError, errorMessage } from '../../shared/errors.js';
import { NetBoxClient } from '../netbox/client.js';
import type { Db } from '../state/database.js';
import { EmbeddedInventory } from './embedded/embedded.js';
import { readNodesFile, type NodeClass } from './embedded/nodes-file.js';
import type { Inventory } from './inventory.js';
import { NetBoxInventory } from './netbox/netbox-inventory.js';

/** The command-line options that choose and configure the inventory (for parseArgs). */
export const INVENTORY_OPTIONS = {
  nodes: { type: 'string' },
  'netbox-url': { type: 'string' },
  'netbox-token-file': { type: 'string' },
  'binding-author': { type: 'string' },
  classes: { type: 'string' },
  'node-network': { type: 'string' },
} as const;

export const INVENTORY_USAGE = `  --nodes FILE        the embedded inventory: the lab's nodes file (models, classes, nodes)
  --netbox-url URL    or NetBox (https://capsule.<tailnet>)
  --netbox-token-file FILE  its API token (v1, or v2 nbt_...), read from a file so no ps shows it
  --binding-author USER     the NetBox user whose writes of approved_ek_hash* are trusted (Terraform's)
  --classes FILE      with NetBox: the classes (a nodes file's classes: map), which NetBox names only
  --node-network CIDR the nodes' network (K8S_NODE_CIDR): a nodes file may then write addresses without a prefix`;

export interface InventoryChoice {
  nodes?: string | undefined;
  'netbox-url'?: string | undefined;
  'netbox-token-file'?: string | undefined;
  'binding-author'?: string | undefined;
  classes?: string | undefined;
  'node-network'?: string | undefined;
}

/** Opens the inventory the options name: exactly one of the embedded file or NetBox. */
export async function openInventory(o: InventoryChoice, db: Db): Promise<Inventory> {
  if (o.nodes && o['netbox-url']) throw new FleetError('usage', 'name one inventory: --nodes or --netbox-url, not both');
  if (o.nodes) return new EmbeddedInventory(o.nodes, db, { nodeNetwork: o['node-network'] });
  if (!o['netbox-url']) throw new FleetError('usage', 'name an inventory: --nodes FILE, or --netbox-url URL with --netbox-token-file FILE');
  if (!o['netbox-token-file']) throw new FleetError('usage', '--netbox-url needs --netbox-token-file');
  let token: string;
  try {
    token = (await readFile(o['netbox-token-file'], 'utf8')).trim();
  } catch (err) {
    throw new FleetError('usage', `cannot read the NetBox token file: ${errorMessage(err)}`);
  }
  const client = new NetBoxClient({ url: o['netbox-url'], token });
  await client.status(); // a wrong URL or token fails here, at start, not at the first boot
  return new NetBoxInventory(client, { ...(o['binding-author'] ? { bindingAuthor: o['binding-author'] } : {}), classes: await readClasses(o.classes) });
}

/** The class catalogue for NetBox mode: a file with a nodes file's `classes:` map, checked the same way. */
async function readClasses(path: string | undefined): Promise<Map<string, NodeClass>> {
  if (!path) return new Map();
  const { file, problems } = readNodesFile(await readFile(path, 'utf8'), path);
  if (problems.length) throw new FleetError('nodes-invalid', `${path}: ${problems.map((p) => (p.where ? `${p.where}: ${p.message}` : p.message)).join('; ')}`);
  return file.classes;
}

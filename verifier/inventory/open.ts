import { readFile } from 'node:fs/promises';
import { FleetError, errorMessage } from '../../shared/errors.js';
import { NetBoxClient } from '../netbox/client.js';
import type { InventoryConfig } from '../config/serve-config.js';
import type { Db } from '../state/database.js';
import { EmbeddedInventory } from './embedded/embedded.js';
import { readNodesFile, type NodeClass } from './embedded/nodes-file.js';
import type { Inventory } from './inventory.js';
import type { NodesFileChange } from './embedded/nodes-file-source.js';
import { NetBoxInventory } from './netbox/netbox-inventory.js';

/**
 * Opens the inventory the config names: the embedded nodes file, or NetBox (checked at once).
 * `onChange` hears what became of each later change to the nodes file.
 */
export async function openInventory(cfg: InventoryConfig, db: Db, onChange?: (change: NodesFileChange) => void): Promise<Inventory> {
  if (cfg.kind === 'embedded') return new EmbeddedInventory(cfg.nodesFile, db, { nodeNetwork: cfg.nodeNetwork, ...(onChange ? { onChange } : {}) });
  let token: string;
  try {
    token = (await readFile(cfg.tokenFile, 'utf8')).trim();
  } catch (err) {
    throw new FleetError('config-unreadable', `cannot read the NetBox token file: ${errorMessage(err)}`);
  }
  const client = new NetBoxClient({ url: cfg.url, token });
  await client.status(); // a wrong URL or token fails here, at start, not at the first boot
  return new NetBoxInventory(client, { ...(cfg.bindingAuthor ? { bindingAuthor: cfg.bindingAuthor } : {}), classes: await readClasses(cfg.classesFile) });
}

/** The class catalogue for NetBox mode: a file with a nodes file's `classes:` map, checked the same way. */
async function readClasses(path: string | undefined): Promise<Map<string, NodeClass>> {
  if (!path) return new Map();
  const { file, problems } = readNodesFile(await readFile(path, 'utf8'), path, { classesOnly: true });
  if (problems.length) throw new FleetError('nodes-invalid', `${path}: ${problems.map((p) => (p.where ? `${p.where}: ${p.message}` : p.message)).join('; ')}`);
  return file.classes;
}

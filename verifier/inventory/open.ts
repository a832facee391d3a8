import { FleetError } from '../../shared/errors.js';
import type { Db } from '../state/database.js';
import { EmbeddedInventory } from './embedded/embedded.js';
import type { Inventory } from './inventory.js';

/** The command-line options that choose and configure the inventory (for parseArgs). */
export const INVENTORY_OPTIONS = {
  nodes: { type: 'string' },
} as const;

export const INVENTORY_USAGE = `  --nodes FILE        the embedded inventory: the lab's nodes file (models, classes, nodes)`;

/** Opens the inventory the options name. */
export async function openInventory(o: { nodes?: string | undefined }, db: Db): Promise<Inventory> {
  if (o.nodes) return new EmbeddedInventory(o.nodes, db);
  throw new FleetError('usage', 'name an inventory: --nodes FILE');
}

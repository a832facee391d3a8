import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedInventory } from '../../verifier/inventory/embedded/embedded.js';
import { openDatabase } from '../../verifier/state/database.js';
import { inventoryContract } from './contract.js';
import { nodesYaml } from './nodes-yaml.js';

inventoryContract('embedded', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'inv-embedded-'));
  const nodesPath = join(dir, 'nodes.yaml');
  await writeFile(nodesPath, nodesYaml([]));
  const db = openDatabase(join(dir, 'state'));
  return {
    inventory: new EmbeddedInventory(nodesPath, db),
    async declare(nodes) {
      await writeFile(nodesPath, nodesYaml(nodes));
    },
    async close() {
      db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

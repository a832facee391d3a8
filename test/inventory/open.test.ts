import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EmbeddedInventory } from '../../verifier/inventory/embedded/embedded.js';
import { NetBoxInventory } from '../../verifier/inventory/netbox/netbox-inventory.js';
import { parseServeConfig, type InventoryConfig } from '../../verifier/config/serve-config.js';
import { openInventory } from '../../verifier/inventory/open.js';
import { openDatabase } from '../../verifier/state/database.js';
import { FakeNetBox } from '../netbox/fake-netbox.js';
import { fleetCli } from '../fleet-cli.js';
import { nodesYaml } from './nodes-yaml.js';

let dir: string;
let fake: FakeNetBox | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  await rm(dir, { recursive: true, force: true });
});

const netbox = (url: string, tokenFile: string, bindingAuthor?: string): InventoryConfig => ({
  kind: 'netbox',
  url,
  tokenFile,
  bindingAuthor,
  classesFile: undefined,
});

describe("fleet serve's inventory options", () => {
  it('opens the embedded inventory from --nodes, and NetBox from --netbox-url with a token file', async () => {
    dir = await mkdtemp(join(tmpdir(), 'open-'));
    const db = openDatabase(join(dir, 'state'));
    await writeFile(join(dir, 'nodes.yaml'), nodesYaml([]));
    expect(await openInventory({ kind: 'embedded', nodesFile: join(dir, 'nodes.yaml'), nodeNetwork: undefined }, db)).toBeInstanceOf(EmbeddedInventory);
    fake = await FakeNetBox.start();
    await writeFile(join(dir, 'token'), `${fake.tokenV2}\n`);
    expect(await openInventory(netbox(fake.url, join(dir, 'token'), 'terraform'), db)).toBeInstanceOf(NetBoxInventory);
    db.close();
  });

  it('fails at start, not at the first boot: a refused token, a missing token file, two inventories or none', async () => {
    dir = await mkdtemp(join(tmpdir(), 'open-'));
    const db = openDatabase(join(dir, 'state'));
    fake = await FakeNetBox.start();
    await writeFile(join(dir, 'token'), '0'.repeat(40));
    await expect(openInventory(netbox(fake.url, join(dir, 'token')), db)).rejects.toMatchObject({ code: 'netbox-forbidden' });
    await expect(openInventory(netbox(fake.url, join(dir, 'none')), db)).rejects.toMatchObject({
      code: 'config-unreadable',
      message: /cannot read the NetBox token file/,
    });
    // What the command line gets wrong is refused before anything opens (serve-config.ts).
    const refused =
      (...args: string[]) =>
      () =>
        parseServeConfig(['--state', dir, ...args], {});
    expect(refused('--netbox-url', fake.url)).toThrow(/needs --netbox-token-file/);
    expect(refused('--nodes', 'x', '--netbox-url', fake.url)).toThrow(/not both/);
    expect(refused()).toThrow(/name an inventory/);
    db.close();
  });

  it('--node-network lets a lab-style nodes file write an address without its prefix (fleet serve and fleet inventory)', async () => {
    dir = await mkdtemp(join(tmpdir(), 'open-'));
    const nodes = join(dir, 'nodes.yaml');
    await writeFile(nodes, nodesYaml([{ hostname: 'node-1', serial: 'SN1', className: 'worker', address: '10.40.0.21' }]));
    const db = openDatabase(join(dir, 'state'));
    await expect(openInventory({ kind: 'embedded', nodesFile: nodes, nodeNetwork: undefined }, db)).rejects.toThrow(
      'address 10.40.0.21 has no prefix length: write it as 10.40.0.21/<prefix>, or name the node network (node_network: in the file, or fleet serve --node-network CIDR)',
    );
    const inv = await openInventory({ kind: 'embedded', nodesFile: nodes, nodeNetwork: '10.40.0.0/24' }, db);
    expect((await inv.deviceByName('node-1'))?.address).toBe('10.40.0.21/24');
    db.close();
    const shown = await fleetCli('inventory', 'show', 'node-1', '--nodes', nodes, '--state', join(dir, 'state'), '--node-network', '10.40.0.0/24');
    expect(shown.code).toBe(0);
    expect((JSON.parse(shown.stdout) as { device: { address: string } }).device.address).toBe('10.40.0.21/24');
  });
});

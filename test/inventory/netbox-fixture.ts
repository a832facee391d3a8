import { NetBoxClient } from '../../verifier/netbox/client.js';
import { NetBoxInventory } from '../../verifier/inventory/netbox/netbox-inventory.js';
import { stringify } from 'yaml';
import { readNodesFile } from '../../verifier/inventory/embedded/nodes-file.js';
import { FakeNetBox } from '../netbox/fake-netbox.js';
import { RIG_CATALOGUE } from '../swtpm/rig.js';
import type { DeclaredNode, InventoryFixture } from './contract.js';

/** Terraform's NetBox user: the trusted author of every binding. */
export const TERRAFORM = 'terraform';

export interface NetBoxFixture extends InventoryFixture {
  fake: FakeNetBox;
  inventory: NetBoxInventory;
  /** NetBox ids of the declared devices, by host name. */
  ids: Map<string, number>;
}

/**
 * A fake NetBox holding the declared nodes as the lab's Terraform writes them: a planned device
 * with its serial, primary IPv4 and custom fields, its boot NIC cabled to the switch port, and
 * the binding written by Terraform's user (so the changelog shows it).
 */
export async function netboxFixture(opts: { bindingAuthor?: string } = { bindingAuthor: TERRAFORM }): Promise<NetBoxFixture> {
  const fake = await FakeNetBox.start();
  fake.addUser(TERRAFORM);
  const client = new NetBoxClient({ url: fake.url, token: fake.token, retries: 0 });
  const ids = new Map<string, number>();
  const classes = readNodesFile(stringify({ classes: RIG_CATALOGUE.classes })).file.classes;
  const inventory = new NetBoxInventory(client, { classes, ...(opts.bindingAuthor === undefined ? {} : { bindingAuthor: opts.bindingAuthor }) });
  return {
    fake,
    inventory,
    ids,
    async declare(nodes: DeclaredNode[]) {
      for (const n of nodes) {
        const id = fake.addDevice({
          name: n.hostname,
          serial: n.serial,
          status: 'planned',
          ...(n.address ? { primaryIp4: n.address } : {}),
          customFields: {
            class: n.className,
            ...(n.disk ? { install_disk: n.disk } : {}),
            ...(n.diskSerial ? { install_disk_serial: n.diskSerial } : {}),
            ...(n.bmcType ? { bmc_type: n.bmcType } : {}),
          },
        });
        ids.set(n.hostname, id);
        const eno1 = fake.addInterface({ deviceId: id, name: 'eno1' });
        if (n.switchPort) fake.cableToSwitchPort(eno1, { switchName: 'usw-rack-1', port: n.switchPort });
        const binding: Record<string, string> = {};
        if (n.binding?.rsa2048) binding.approved_ek_hash = n.binding.rsa2048;
        if (n.binding?.eccp256) binding.approved_ek_hash_ecc = n.binding.eccp256;
        if (Object.keys(binding).length) fake.setCustomFieldAs(TERRAFORM, id, binding, 'terraform apply');
      }
    },
    close: () => fake.close(),
  };
}

import { stringify } from 'yaml';
import { RIG_CATALOGUE } from '../swtpm/rig.js';
import type { DeclaredNode } from './contract.js';

/** The lab's nodes file for declared nodes. */
export function nodesYaml(nodes: DeclaredNode[]): string {
  const entry = (n: DeclaredNode) => {
    const e: Record<string, unknown> = { model: 'm720q', serial: n.serial, class: n.className };
    if (n.switchPort) e.switch_port = n.switchPort;
    if (n.address) e.address = n.address;
    if (n.bmcType) e.bmc_type = n.bmcType;
    if (n.disk) e.disk = n.disk;
    if (n.diskSerial) e.disk_serial = n.diskSerial;
    if (n.binding?.rsa2048) e.approved_ek_rsa2048 = n.binding.rsa2048;
    if (n.binding?.eccp256) e.approved_ek_eccp256 = n.binding.eccp256;
    return e;
  };
  return stringify({ ...RIG_CATALOGUE, nodes: Object.fromEntries(nodes.map((n) => [n.hostname, entry(n)])) });
}

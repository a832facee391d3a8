import type { Device } from '../verifier/inventory/device.js';
import { desiredHardware, desiredMachine } from '../verifier/reconcile/desired.js';
import type { KubeObject } from '../verifier/reconcile/objects.js';

/** The benchmark's fleet: n workers, each with a MAC, an address and an AMT BMC. Deterministic. */
export function fleetNode(i: number): { hostname: string; entry: Record<string, unknown>; mac: string } {
  const hostname = `node-${String(i).padStart(5, '0')}`;
  const mac = `52:54:00:${[(i >> 16) & 255, (i >> 8) & 255, i & 255].map((b) => b.toString(16).padStart(2, '0')).join(':')}`;
  const entry = {
    model: 'm720q',
    serial: `SN${i}`,
    class: 'worker',
    switch_port: `sw${Math.floor(i / 48)}/${i % 48}`,
    address: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}/8`,
    bmc_type: 'amt',
    disk: '/dev/nvme0n1',
    disk_serial: `DS${i}`,
  };
  return { hostname, entry, mac };
}

/** The Device the inventory reads for node i, once it attested. */
export function fleetDevice(i: number): Device {
  const { hostname, entry, mac } = fleetNode(i);
  return {
    id: hostname,
    hostname,
    serial: String(entry.serial),
    status: 'planned',
    controlPlane: false,
    className: 'worker',
    address: String(entry.address),
    switchPort: String(entry.switch_port),
    bmcType: 'amt',
    installDisk: '/dev/nvme0n1',
    installDiskSerial: String(entry.disk_serial),
    binding: {},
    mac,
  };
}

/** The objects a converged fleet has in Tinkerbell: each node's Hardware and Machine as fleetd made them. */
export function fleetObjects(n: number, namespace: string): KubeObject[] {
  const out: KubeObject[] = [];
  for (let i = 1; i <= n; i++) {
    const d = fleetDevice(i);
    out.push(desiredHardware(d, namespace, false), desiredMachine(d, namespace)!);
  }
  return out;
}

/**
 * A node's entry in the lab's nodes file: an m720q worker on Port 5 with AMT and its NVMe disk,
 * each field as `over` gives it; a field given null is left out (an entry that lacks it).
 */
export function nodeEntry(over: Record<string, unknown> = {}): Record<string, unknown> {
  const e: Record<string, unknown> = {
    model: 'm720q',
    serial: 'SN1',
    class: 'worker',
    switch_port: 'Port 5',
    address: '10.0.1.11/24',
    bmc_type: 'amt',
    disk: '/dev/nvme0n1',
    disk_serial: 'S4EV1',
  };
  for (const [k, v] of Object.entries(over)) {
    if (v === null) delete e[k];
    else e[k] = v;
  }
  return e;
}

/**
 * Datagrams the kernel dropped because a UDP socket's receive buffer was full, before fleetd could
 * read them: the `drops` column of /proc/net/udp and /proc/net/udp6, for the rows bound to a port.
 */
import { readFileSync } from 'node:fs';

export function udpDrops(procNetUdp: string, port: number): number {
  const local = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  let drops = 0;
  // Columns: sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ref pointer drops
  for (const line of procNetUdp.split('\n').slice(1)) {
    const cols = line.trim().split(/\s+/);
    if (cols.length >= 13 && cols[1]!.endsWith(local)) drops += Number(cols[12]) || 0;
  }
  return drops;
}

export function readUdpDrops(port: number): number {
  let drops = 0;
  for (const file of ['/proc/net/udp', '/proc/net/udp6']) {
    try {
      drops += udpDrops(readFileSync(file, 'latin1'), port);
    } catch {
      // No IPv6 (or no /proc): that table has no socket of ours.
    }
  }
  return drops;
}

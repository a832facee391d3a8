import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { isLoopback } from '../../shared/net/loopback.js';
import { peerAddress } from '../../shared/net/peer-address.js';
import type { Subnet } from '../../shared/net/subnet.js';

/**
 * Who may read `/metrics`: its labels name nodes, and its counters say which were refused and
 * when, which is no business of any peer on the node network. Loopback always; beyond that only
 * the addresses and networks given (the Prometheus that scrapes fleetd), read by serve-config.ts.
 */
export function metricsAccess(allowed: readonly Subnet[]): (peer: string) => boolean {
  const list = new BlockList();
  for (const s of allowed) list.addSubnet(s.address, s.prefix, s.family);
  return (peer) => {
    const ip = peerAddress(peer);
    return isLoopback(ip) || (isIPv4(ip) ? list.check(ip, 'ipv4') : isIPv6(ip) && list.check(ip, 'ipv6'));
  };
}

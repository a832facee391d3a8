import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { FleetError } from '../../shared/errors.js';
import { isLoopback } from '../../shared/net/loopback.js';
import { peerAddress } from '../../shared/net/peer-address.js';

/**
 * Who may read `/metrics`: its labels name nodes, and its counters say which were refused and
 * when, which is no business of any peer on the node network. Loopback always; beyond that only
 * the addresses and networks given (the Prometheus that scrapes fleetd).
 */
export function metricsAccess(allowed: readonly string[]): (peer: string) => boolean {
  const list = new BlockList();
  for (const entry of allowed) {
    const [addr = '', bits] = entry.split('/');
    const family = isIPv4(addr) ? 'ipv4' : isIPv6(addr) ? 'ipv6' : null;
    const prefix = bits === undefined ? (family === 'ipv4' ? 32 : 128) : Number(bits);
    if (!family || !Number.isInteger(prefix) || prefix < 0 || prefix > (family === 'ipv4' ? 32 : 128)) {
      throw new FleetError('usage', `--metrics-from: ${entry} is not an address or an address/prefix`);
    }
    list.addSubnet(addr, prefix, family);
  }
  return (peer) => {
    const ip = peerAddress(peer);
    return isLoopback(ip) || (isIPv4(ip) ? list.check(ip, 'ipv4') : isIPv6(ip) && list.check(ip, 'ipv6'));
  };
}

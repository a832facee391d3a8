import { isIPv4, isIPv6 } from 'node:net';

/** An address or network as an operator names it: `10.0.9.0/24`, `2001:db8::7` (a host). */
export interface Subnet {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/**
 * `ADDR[/PREFIX]`, or null when it is not one. The prefix is decimal digits and nothing else:
 * `Number()` reads `''`, `' 8'` or `0x8` as numbers, and an empty prefix read as 0 would name
 * every address there is.
 */
export function parseSubnet(text: string): Subnet | null {
  const parts = text.split('/');
  if (parts.length > 2) return null;
  const [address = '', bits] = parts;
  const family = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : null;
  if (!family) return null;
  const max = family === 'ipv4' ? 32 : 128;
  if (bits === undefined) return { address, prefix: max, family };
  if (!/^\d{1,3}$/.test(bits)) return null;
  const prefix = Number(bits);
  return prefix <= max ? { address, prefix, family } : null;
}

import { isIP } from 'node:net';
import { peerAddress } from './peer-address.js';

/**
 * Address groups: the prefix one host can fill. Anyone on the node LAN can add IPv4 aliases in
 * its /24, or use any address of its IPv6 /64, so a cap keyed on the address alone falls to a few
 * dozen addresses; keyed on the group as well, it holds.
 */
export interface GroupPrefixes {
  v4: number;
  v6: number;
}

export const DEFAULT_GROUP_PREFIXES: GroupPrefixes = { v4: 24, v6: 64 };

/** `10.0.1.0/24`, `fd00:0:0:1::/64`; an address that is no IP (a Unix socket's) is a group of its own. */
export function addressGroup(address: string, prefixes: GroupPrefixes = DEFAULT_GROUP_PREFIXES): string {
  const a = peerAddress(address).replace(/%.*$/, '');
  const kind = isIP(a);
  if (kind === 4) return `${masked(a.split('.').map(Number), 8, prefixes.v4).join('.')}/${prefixes.v4}`;
  if (kind === 6) return `${text6(masked(words(a), 16, prefixes.v6))}/${prefixes.v6}`;
  return a;
}

/** The parts of an address, each `width` bits, with every bit past `prefix` cleared. */
function masked(parts: number[], width: number, prefix: number): number[] {
  return parts.map((p, i) => {
    const keep = Math.max(0, Math.min(width, prefix - i * width));
    return keep === 0 ? 0 : p & (((1 << width) - 1) ^ ((1 << (width - keep)) - 1));
  });
}

/** An IPv6 address's eight 16-bit words (an IPv4 tail read as two). */
function words(a: string): number[] {
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  let text = a;
  if (tail) {
    const [b0, b1, b2, b3] = tail[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${a.slice(0, tail.index)}${((b0 << 8) | b1).toString(16)}:${((b2 << 8) | b3).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const r = rest ? rest.split(':') : [];
  const fill = rest === undefined ? [] : Array<string>(8 - h.length - r.length).fill('0');
  return [...h, ...fill, ...r].map((w) => Number.parseInt(w, 16));
}

/** Eight words as an address, the longest run of zero words written `::`. */
function text6(w: number[]): string {
  let best = { at: -1, length: 0 };
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && w[j] === 0) j++;
    if (j - i > best.length) best = { at: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  const hex = w.map((x) => x.toString(16));
  if (best.length < 2) return hex.join(':');
  return `${hex.slice(0, best.at).join(':')}::${hex.slice(best.at + best.length).join(':')}`;
}

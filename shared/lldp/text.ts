/** Rendering LLDP's strings and addresses: lenient text, MACs, IP addresses. */
import { ADDRESS_FAMILIES } from './names.js';

const lenient = new TextDecoder('utf-8', { fatal: false });
const strict = new TextDecoder('utf-8', { fatal: true });

/** A text field: UTF-8 with replacement characters for bad bytes, trailing NULs dropped (C senders pad). */
export function decodeText(bytes: Uint8Array): string {
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end--;
  return lenient.decode(bytes.subarray(0, end));
}

/** A string a C sender wrote into a fixed field: it ends at the first NUL, whatever follows. */
export function decodeCString(bytes: Uint8Array): string {
  const nul = bytes.indexOf(0);
  return lenient.decode(nul < 0 ? bytes : bytes.subarray(0, nul));
}

/**
 * Text that identifies something (a chassis or port ID): only when it is valid UTF-8 without
 * control characters, else undefined, so the caller shows the bytes instead of a lossy rendering
 * (two different binary IDs must never print the same).
 */
export function identifierText(bytes: Uint8Array): string | undefined {
  let end = bytes.length;
  while (end > 0 && bytes[end - 1] === 0) end--;
  let text: string;
  try {
    text = strict.decode(bytes.subarray(0, end));
  } catch {
    return undefined;
  }
  return text.length > 0 && !/[\u0000-\u001f\u007f-\u009f]/.test(text) ? text : undefined;
}

/** `aa:bb:cc:...`, lowercase: MAC addresses and any binary ID. */
export function colonHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join(':');
}

/** An address of an IANA family, or undefined when its length does not fit the family. */
export function formatAddress(family: number, addr: Uint8Array): string | undefined {
  switch (ADDRESS_FAMILIES[family]) {
    case 'ipv4':
      return addr.length === 4 ? addr.join('.') : undefined;
    case 'ipv6':
      return addr.length === 16 ? formatIpv6(addr) : undefined;
    case 'all802':
      return addr.length === 6 ? colonHex(addr) : undefined;
    default:
      return undefined;
  }
}

/** RFC 5952 form: lowercase, the longest run of two or more zero groups shortened to `::`. */
function formatIpv6(addr: Uint8Array): string {
  const groups = Array.from({ length: 8 }, (_, i) => ((addr[2 * i]! << 8) | addr[2 * i + 1]!).toString(16));
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLen) [best, bestLen] = [i, j - i];
    i = j === i ? i + 1 : j;
  }
  if (best < 0) return groups.join(':');
  return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
}

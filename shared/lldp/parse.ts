/**
 * The entry points: an LLDP Ethernet frame (destination and source MAC, any 802.1Q (0x8100) /
 * 802.1ad (0x88a8) tags, ethertype 0x88cc, then the LLDPDU), or an LLDPDU alone. Byte offsets in
 * messages and problems count from the start of the bytes given.
 */
import { ByteReader } from '../bytes/reader.js';
import { ParseError } from '../errors.js';
import { LLDP_MALFORMED, readLldpdu } from './lldpdu.js';
import { colonHex } from './text.js';
import type { LldpFrame } from './types.js';

export const ETHERTYPE_LLDP = 0x88cc;
/** 802.1Q C-tag, 802.1ad S-tag, and the pre-standard 0x9100 S-tag some switches still send. */
export const VLAN_TAG_TYPES: ReadonlySet<number> = new Set([0x8100, 0x88a8, 0x9100]);
/** Nearest bridge, nearest non-TPMR bridge, nearest customer bridge (802.1AB-2016 Table 7-1). */
export const LLDP_GROUP_ADDRESSES: ReadonlySet<string> = new Set(['01:80:c2:00:00:0e', '01:80:c2:00:00:03', '01:80:c2:00:00:00']);

/** Refused with this code: a frame that is well-formed Ethernet but carries no LLDP. */
export const LLDP_NOT_LLDP = 'lldp-not-lldp';

/** Decodes an LLDPDU without its Ethernet header. */
export function parseLldpdu(bytes: Uint8Array): LldpFrame {
  return readLldpdu(new ByteReader(bytes, LLDP_MALFORMED, 'LLDPDU'));
}

export function parseLldpFrame(frame: Uint8Array): LldpFrame {
  const r = new ByteReader(frame, LLDP_MALFORMED, 'LLDP frame');
  if (frame.length < 14) r.fail(`has ${frame.length} bytes, shorter than an Ethernet header (14)`);
  const destination = colonHex(r.bytes(6, 'destination MAC'));
  const source = colonHex(r.bytes(6, 'source MAC'));
  const vlanIds: number[] = [];
  let ethertype = r.u16('ethertype');
  while (VLAN_TAG_TYPES.has(ethertype)) {
    vlanIds.push(r.u16('VLAN tag') & 0x0fff);
    ethertype = r.u16('ethertype');
  }
  if (ethertype !== ETHERTYPE_LLDP) {
    throw new ParseError(LLDP_NOT_LLDP, `not an LLDP frame: ethertype 0x${ethertype.toString(16).padStart(4, '0')}, not 0x88cc`, r.offset - 2);
  }
  const lldp = readLldpdu(r);
  if (!LLDP_GROUP_ADDRESSES.has(destination)) lldp.problems.push(`destination ${destination} is not an LLDP group address`);
  return { ethernet: { destination, source, vlanIds }, ...lldp };
}

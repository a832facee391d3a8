/** IEEE 802.1 organizationally specific TLVs, OUI 00-80-C2 (802.1Q-2014 Annex D). */
import type { ByteReader } from '../bytes/reader.js';
import { decodeText } from './text.js';
import type { OrgDecoded } from './types.js';

export const DOT1_SUBTYPES: Readonly<Record<number, string>> = {
  1: 'Port VLAN ID',
  2: 'Port And Protocol VLAN ID',
  3: 'VLAN Name',
  4: 'Protocol Identity',
  5: 'VID Usage Digest',
  6: 'Management VID',
  7: 'Link Aggregation',
  8: 'Congestion Notification',
  9: 'ETS Configuration',
  10: 'ETS Recommendation',
  11: 'Priority-based Flow Control Configuration',
  12: 'Application Priority',
};

/** The decoded TLV, or undefined for subtypes kept raw only. */
export function decodeDot1(subtype: number, r: ByteReader): OrgDecoded | undefined {
  switch (subtype) {
    case 1: {
      const vlanId = r.u16('port VLAN ID');
      r.end('the port VLAN ID');
      return { kind: 'dot1-port-vlan', vlanId };
    }
    case 2: {
      const flags = r.u8('flags');
      const vlanId = r.u16('port and protocol VLAN ID');
      r.end('the port and protocol VLAN ID');
      return { kind: 'dot1-protocol-vlan', supported: (flags & 0x02) !== 0, enabled: (flags & 0x04) !== 0, vlanId };
    }
    case 3: {
      const vlanId = r.u16('VLAN ID');
      const nameLength = r.u8('VLAN name length');
      if (nameLength < 1 || nameLength > 32) r.fail(`VLAN name length ${nameLength} is outside 1-32`);
      const name = decodeText(r.bytes(nameLength, 'VLAN name'));
      r.end('the VLAN name');
      return { kind: 'dot1-vlan-name', vlanId, name };
    }
    case 7:
      return readLinkAggregation(r);
    default:
      return undefined;
  }
}

/** Also the deprecated 802.3 subtype 3, which has the same layout. */
export function readLinkAggregation(r: ByteReader): OrgDecoded {
  const status = r.u8('aggregation status');
  const aggregatedPortId = r.u32('aggregated port ID');
  r.end('the aggregated port ID');
  return { kind: 'link-aggregation', capable: (status & 0x01) !== 0, aggregated: (status & 0x02) !== 0, aggregatedPortId };
}

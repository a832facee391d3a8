/** Organizationally specific TLVs (type 127): kept raw, decoded for the OUIs fleet knows. */
import { ParseError } from '../errors.js';
import type { ByteReader } from '../bytes/reader.js';
import { DOT1_SUBTYPES, decodeDot1 } from './dot1.js';
import { DOT3_SUBTYPES, decodeDot3 } from './dot3.js';
import { MED_SUBTYPES, decodeMed } from './med.js';
import { colonHex } from './text.js';
import type { LldpFrame, OrgDecoded, OrgSpecificTlv } from './types.js';

interface Organization {
  name: string;
  subtypes: Readonly<Record<number, string>>;
  decode(subtype: number, r: ByteReader, note: (problem: string) => void): OrgDecoded | undefined;
}

const ORGANIZATIONS: Record<string, Organization> = {
  '00:80:c2': { name: '802.1', subtypes: DOT1_SUBTYPES, decode: decodeDot1 },
  '00:12:0f': { name: '802.3', subtypes: DOT3_SUBTYPES, decode: decodeDot3 },
  '00:12:bb': { name: 'LLDP-MED', subtypes: MED_SUBTYPES, decode: decodeMed },
};

/**
 * Reads an organizationally specific TLV whose value `r` spans. The raw form is kept even when
 * decoding its content fails; that failure, and any leniency, becomes a line in `problems`.
 */
export function readOrgSpecific(r: ByteReader, at: number, problems: string[]): OrgSpecificTlv {
  if (r.remaining < 4) r.fail(`has ${r.remaining} bytes, too short for an OUI and a subtype`);
  const oui = colonHex(r.bytes(3, 'OUI'));
  const subtype = r.u8('subtype');
  const tlv: OrgSpecificTlv = { oui, subtype, value: r.buf.slice(r.offset) };
  const org = ORGANIZATIONS[oui];
  if (org === undefined) return tlv;
  tlv.ouiName = org.name;
  const subtypeName = org.subtypes[subtype];
  if (subtypeName !== undefined) tlv.subtypeName = subtypeName;
  const label = `${org.name} ${subtypeName ?? `subtype ${subtype}`} TLV at byte ${at}`;
  try {
    const decoded = org.decode(subtype, r, (problem) => problems.push(`${label}: ${problem}`));
    if (decoded !== undefined) tlv.decoded = decoded;
  } catch (err) {
    if (!(err instanceof ParseError)) throw err;
    problems.push(`${label} could not be decoded, kept raw: ${err.message}`);
  }
  return tlv;
}

/** The first decoded organizationally specific TLV of `kind`, e.g. `findDecoded(frame, 'dot1-port-vlan')?.vlanId`. */
export function findDecoded<K extends OrgDecoded['kind']>(frame: LldpFrame, kind: K): Extract<OrgDecoded, { kind: K }> | undefined {
  for (const tlv of frame.orgSpecific) {
    if (tlv.decoded?.kind === kind) return tlv.decoded as Extract<OrgDecoded, { kind: K }>;
  }
  return undefined;
}

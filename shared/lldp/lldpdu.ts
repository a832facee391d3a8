/**
 * The LLDPDU: a sequence of TLVs (7-bit type, 9-bit length, value) that must start with Chassis ID,
 * Port ID and Time To Live and ends with End (IEEE 802.1AB-2016 8.2). A missing or malformed
 * mandatory TLV refuses the whole frame (`lldp-malformed`); a damaged optional TLV is skipped and
 * described in `problems`, and the TLVs around it still decode.
 */
import { ByteReader } from '../bytes/reader.js';
import { ParseError } from '../errors.js';
import { readId } from './ids.js';
import { readManagementAddress, readSystemCapabilities } from './mgmt.js';
import { TLV, TLV_NAMES } from './names.js';
import { readOrgSpecific } from './org.js';
import { decodeText } from './text.js';
import type { LldpFrame } from './types.js';

export const LLDP_MALFORMED = 'lldp-malformed';

interface Tlv {
  type: number;
  name: string;
  /** Offset of the TLV header. */
  at: number;
  length: number;
  /** Reads the value only: bounded to it, with offsets that still count from the buffer's start. */
  value: ByteReader;
}

function tlvName(type: number): string {
  return TLV_NAMES[type] ?? `reserved type ${type}`;
}

/** The TLV at `r`'s position; `r` moves past it. A length beyond the buffer is refused. */
function nextTlv(r: ByteReader): Tlv {
  const at = r.offset;
  const header = r.u16('TLV header');
  const type = header >>> 9;
  const length = header & 0x1ff;
  const name = tlvName(type);
  if (length > r.remaining) r.fail(`${name} TLV claims ${length} bytes, ${r.remaining} left`, at);
  const value = new ByteReader(r.buf.subarray(0, r.offset + length), r.code, `${name} TLV`);
  value.offset = r.offset;
  r.offset += length;
  return { type, name, at, length, value };
}

function mandatory(r: ByteReader, type: number): Tlv {
  if (r.remaining < 2) r.fail(`ends before the mandatory ${tlvName(type)} TLV`);
  const tlv = nextTlv(r);
  if (tlv.type !== type) r.fail(`expected the mandatory ${tlvName(type)} TLV, found ${tlv.name}`, tlv.at);
  return tlv;
}

/** Reads TLVs from `r`'s position to the End TLV (or the end of the buffer). */
export function readLldpdu(r: ByteReader): LldpFrame {
  const problems: string[] = [];
  const chassis = mandatory(r, TLV.chassisId);
  const chassisId = readId(chassis.value, chassis.length, 'Chassis ID', problems);
  const port = mandatory(r, TLV.portId);
  const portId = readId(port.value, port.length, 'Port ID', problems);
  const ttlTlv = mandatory(r, TLV.ttl);
  if (ttlTlv.length !== 2) ttlTlv.value.fail(`has ${ttlTlv.length} bytes, not 2`, ttlTlv.at);
  const frame: LldpFrame = { chassisId, portId, ttl: ttlTlv.value.u16('TTL'), managementAddresses: [], orgSpecific: [], problems };

  for (;;) {
    if (r.remaining < 2) {
      problems.push(r.remaining === 0 ? 'the LLDPDU has no End TLV' : `the LLDPDU has no End TLV, only 1 stray byte at byte ${r.offset}`);
      break;
    }
    let tlv: Tlv;
    try {
      tlv = nextTlv(r);
    } catch (err) {
      if (!(err instanceof ParseError)) throw err;
      // The length is a lie, so where the next TLV starts is unknown: stop here.
      problems.push(`${err.message}; the rest of the LLDPDU is ignored`);
      break;
    }
    if (tlv.type === TLV.end) {
      if (tlv.length !== 0) problems.push(`End TLV at byte ${tlv.at} has ${tlv.length} bytes, not 0`);
      break;
    }
    try {
      readOptional(frame, tlv);
    } catch (err) {
      if (!(err instanceof ParseError)) throw err;
      problems.push(`${err.message}; TLV skipped`);
    }
  }
  return frame;
}

type TextField = 'portDescription' | 'systemName' | 'systemDescription';
const TEXT_FIELDS: Record<number, TextField> = {
  [TLV.portDescription]: 'portDescription',
  [TLV.systemName]: 'systemName',
  [TLV.systemDescription]: 'systemDescription',
};

/** Decodes one optional TLV into `frame`; a ParseError means it was skipped. */
function readOptional(frame: LldpFrame, tlv: Tlv): void {
  const { problems } = frame;
  const where = `${tlv.name} TLV at byte ${tlv.at}`;
  const field = TEXT_FIELDS[tlv.type];
  if (field !== undefined) {
    if (frame[field] !== undefined) problems.push(`${where} repeats it; the first one is kept`);
    else if (tlv.length === 0) problems.push(`${where} is empty and was ignored`);
    else frame[field] = decodeText(tlv.value.bytes(tlv.length));
    return;
  }
  switch (tlv.type) {
    case TLV.chassisId:
    case TLV.portId:
    case TLV.ttl:
      problems.push(`${where} repeats a mandatory TLV and was ignored`);
      return;
    case TLV.systemCapabilities:
      if (frame.systemCapabilities !== undefined) problems.push(`${where} repeats it; the first one is kept`);
      else frame.systemCapabilities = readSystemCapabilities(tlv.value);
      return;
    case TLV.managementAddress:
      frame.managementAddresses.push(readManagementAddress(tlv.value));
      return;
    case TLV.orgSpecific:
      frame.orgSpecific.push(readOrgSpecific(tlv.value, tlv.at, problems));
      return;
    default:
      problems.push(`${where} (${tlv.length} bytes) is not defined by 802.1AB and was ignored`);
  }
}

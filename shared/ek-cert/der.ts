import { ParseError } from '../errors.js';

/** One DER element: its tag byte, where its value starts and where the element ends (offsets into the buffer read). */
export interface Tlv {
  tag: number;
  start: number;
  valueStart: number;
  end: number;
}

export const TAG = { boolean: 0x01, integer: 0x02, bitString: 0x03, oid: 0x06, enumerated: 0x0a, utf8: 0x0c, ia5: 0x16, sequence: 0x30 } as const;

/**
 * The element at `offset` (single-byte tags only, as every field fleet reads from an EK
 * certificate is). A length that runs past `limit`, or one longer than four bytes, is refused
 * here, so no later step reads beyond what the TPM stored.
 */
export function readTlv(bytes: Uint8Array, offset: number, limit = bytes.length): Tlv {
  if (offset + 2 > limit) throw new ParseError('ek-cert-malformed', 'a DER element is cut off before its length', offset);
  const tag = bytes[offset]!;
  if ((tag & 0x1f) === 0x1f) throw new ParseError('ek-cert-malformed', 'a DER element has a multi-byte tag', offset);
  const first = bytes[offset + 1]!;
  let length = first;
  let valueStart = offset + 2;
  if (first & 0x80) {
    const n = first & 0x7f;
    if (n === 0 || n > 4) throw new ParseError('ek-cert-malformed', `a DER length of ${n === 0 ? 'indefinite' : `${n} bytes`} is not DER`, offset);
    if (valueStart + n > limit) throw new ParseError('ek-cert-malformed', 'a DER length is cut off', offset);
    length = 0;
    for (let i = 0; i < n; i++) length = length * 256 + bytes[valueStart + i]!;
    valueStart += n;
  }
  const end = valueStart + length;
  if (end > limit) throw new ParseError('ek-cert-malformed', `a DER element of ${length} bytes runs ${end - limit} bytes past its end`, offset);
  return { tag, start: offset, valueStart, end };
}

/** The elements inside a constructed element, in order. */
export function children(bytes: Uint8Array, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let at = parent.valueStart; at < parent.end; ) {
    const t = readTlv(bytes, at, parent.end);
    out.push(t);
    at = t.end;
  }
  return out;
}

export function value(bytes: Uint8Array, t: Tlv): Uint8Array {
  return bytes.subarray(t.valueStart, t.end);
}

/** A small non-negative INTEGER or ENUMERATED (a level, a revision, an enum value). */
export function smallInt(bytes: Uint8Array, t: Tlv): number {
  const v = value(bytes, t);
  if (v.length === 0 || v.length > 6 || v[0]! & 0x80) throw new ParseError('ek-cert-malformed', 'an integer field is empty, negative or too large', t.start);
  return v.reduce((n, b) => n * 256 + b, 0);
}

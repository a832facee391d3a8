import { ParseError } from '../errors.js';
import { children, smallInt, TAG, type Tlv, value } from '../ek-cert/der.js';

/** The universal tags the TCG attributes use beyond those of der.ts. */
export const TAGS = { ...TAG, octetString: 0x04, printable: 0x13 } as const;

/** A context tag's number, [0] to [30], whether the element is primitive or constructed. */
export const contextTag = (t: Tlv): number | null => ((t.tag & 0xc0) === 0x80 ? t.tag & 0x1f : null);

export const malformed = (what: string, at?: number) => new ParseError('platform-cert-malformed', what, at);

/** The elements of a SEQUENCE, or of an IMPLICIT-tagged one (whose tag replaces the SEQUENCE's). */
export function sequence(der: Uint8Array, t: Tlv, what: string, implicit = false): Tlv[] {
  if (implicit ? (t.tag & 0xe0) !== 0xa0 : t.tag !== TAGS.sequence) throw malformed(`${what} is not a SEQUENCE`, t.start);
  return children(der, t);
}

/**
 * The text of a string element: UTF8String as the profile types its strings, or an IA5String,
 * PrintableString where a maker wrote one; `implicit` takes a context-tagged element as the string.
 */
export function text(der: Uint8Array, t: Tlv, what: string, implicit = false): string {
  if (!implicit && t.tag !== TAGS.utf8 && t.tag !== TAGS.ia5 && t.tag !== TAGS.printable) throw malformed(`${what} is not a string`, t.start);
  if (implicit && (t.tag & 0x20) !== 0) throw malformed(`${what} is not a string`, t.start);
  const v = Buffer.from(value(der, t));
  return t.tag === TAGS.utf8 || implicit ? v.toString('utf8') : v.toString('latin1');
}

export function ia5(der: Uint8Array, t: Tlv, what: string, implicit = false): string {
  if (!implicit && t.tag !== TAGS.ia5) throw malformed(`${what} is not an IA5String`, t.start);
  return text(der, t, what, implicit);
}

export function bool(der: Uint8Array, t: Tlv, what: string): boolean {
  const v = value(der, t);
  if (v.length !== 1) throw malformed(`${what} is not a BOOLEAN`, t.start);
  return v[0] !== 0;
}

/** A small INTEGER or ENUMERATED, the tag checked unless implicit. */
export function small(der: Uint8Array, t: Tlv, what: string, tag?: number): number {
  if (tag !== undefined && t.tag !== tag) throw malformed(`${what} is not ${tag === TAGS.integer ? 'an INTEGER' : 'ENUMERATED'}`, t.start);
  try {
    return smallInt(der, t);
  } catch {
    throw malformed(`${what} is empty, negative or too large`, t.start);
  }
}

/** An enumerated value by the names the profile gives its values, in order from 0. */
export function named<T extends readonly string[]>(der: Uint8Array, t: Tlv, names: T, what: string, tag?: number): T[number] {
  const n = small(der, t, what, tag);
  const name = names[n];
  if (name === undefined) throw malformed(`${what} ${n} is not one the profile defines`, t.start);
  return name;
}

/** An OBJECT IDENTIFIER in dotted form, the tag checked unless implicit. */
export function oid(der: Uint8Array, t: Tlv, what: string, implicit = false): string {
  if (!implicit && t.tag !== TAGS.oid) throw malformed(`${what} is not an OBJECT IDENTIFIER`, t.start);
  const v = value(der, t);
  const arcs: number[] = [];
  let n = 0;
  for (let i = 0; i < v.length; i++) {
    n = n * 128 + (v[i]! & 0x7f);
    if (n > Number.MAX_SAFE_INTEGER / 128) throw malformed(`${what} has an arc too large`, t.start);
    if ((v[i]! & 0x80) === 0) {
      if (arcs.length === 0) arcs.push(Math.min(2, Math.floor(n / 40)), n - 40 * Math.min(2, Math.floor(n / 40)));
      else arcs.push(n);
      n = 0;
    } else if (i === v.length - 1) throw malformed(`${what} ends inside an arc`, t.start);
  }
  if (arcs.length === 0) throw malformed(`${what} is empty`, t.start);
  return arcs.join('.');
}

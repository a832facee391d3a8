import type { Name } from '@peculiar/asn1-x509';
import { toHex } from '../bytes/hex.js';

/** One attribute of a distinguished name: its type's OID and its value as text. */
export interface NameAttribute {
  type: string;
  value: string;
}

/** A distinguished name as the certificate orders it: RDNs, each one or more attributes. */
export type DistinguishedName = NameAttribute[][];

const SHORT: Record<string, string> = {
  '2.5.4.3': 'CN',
  '2.5.4.5': 'serialNumber',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '0.9.2342.19200300.100.1.25': 'DC',
  '1.2.840.113549.1.9.1': 'emailAddress',
  '2.23.133.2.1': 'TPMManufacturer',
  '2.23.133.2.2': 'TPMModel',
  '2.23.133.2.3': 'TPMVersion',
};

export function distinguishedName(name: Name): DistinguishedName {
  return name.map((rdn) => rdn.map((a) => ({ type: a.type, value: a.value.anyValue ? `#${toHex(new Uint8Array(a.value.anyValue))}` : a.value.toString() })));
}

/**
 * The name in the certificate's own order, RDNs joined by ", " and the attributes of one RDN by
 * "+" (as node's X509Certificate and `openssl -nameopt oneline` order it); "" for an empty name.
 */
export function nameText(dn: DistinguishedName): string {
  return dn.map((rdn) => rdn.map((a) => `${SHORT[a.type] ?? a.type}=${a.value}`).join('+')).join(', ');
}

/**
 * Whether an issuer name and a subject name name the same CA: the same RDNs, each compared by
 * its attributes with case and runs of white space ignored (RFC 5280, 7.1), in any order, as
 * HIRS's issuer check compares them.
 */
export function sameName(a: DistinguishedName, b: DistinguishedName): boolean {
  const norm = (x: NameAttribute) => [x.type, x.value.trim().replace(/\s+/g, ' ').toLowerCase()].join('=');
  const key = (dn: DistinguishedName) => JSON.stringify(dn.map((rdn) => JSON.stringify(rdn.map(norm).sort())).sort());
  return a.length === b.length && key(a) === key(b);
}

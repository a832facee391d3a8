import { toHex } from '../bytes/hex.js';
import { children, type Tlv, value } from '../ek-cert/der.js';
import { ia5, malformed, oid, sequence, TAGS } from './fields.js';

/** Where more is written, and the hash of what is there when the issuer gave one (URIReference). */
export interface UriReference {
  uri: string;
  /** The hash algorithm's OID. */
  hashAlgorithm: string | null;
  /** The hash, hex. */
  hashValue: string | null;
}

/** URIReference ::= SEQUENCE { uniformResourceIdentifier IA5String, hashAlgorithm AlgorithmIdentifier OPTIONAL, hashValue BIT STRING OPTIONAL }. */
export function uriReference(der: Uint8Array, t: Tlv, what: string, implicit = false): UriReference {
  const [uri, ...rest] = sequence(der, t, what, implicit);
  if (!uri) throw malformed(`${what} has no URI`, t.start);
  const out: UriReference = { uri: ia5(der, uri, `${what}'s URI`), hashAlgorithm: null, hashValue: null };
  for (const f of rest) {
    if (f.tag === TAGS.sequence && out.hashAlgorithm === null && out.hashValue === null) {
      const [algorithm] = children(der, f);
      if (!algorithm) throw malformed(`${what}'s hash algorithm is empty`, f.start);
      out.hashAlgorithm = oid(der, algorithm, `${what}'s hash algorithm`);
    } else if (f.tag === TAGS.bitString && out.hashValue === null) {
      const bits = value(der, f);
      if (bits.length < 1 || bits[0] !== 0) throw malformed(`${what}'s hash value is not whole bytes`, f.start);
      out.hashValue = toHex(bits.subarray(1));
    } else throw malformed(`${what} holds an element with tag 0x${f.tag.toString(16)}`, f.start);
  }
  return out;
}

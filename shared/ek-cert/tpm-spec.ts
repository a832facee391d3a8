import { ParseError } from '../errors.js';
import type { X509 } from './certificate.js';
import { children, readTlv, smallInt, TAG, value } from './der.js';
import { directoryAttribute } from './directory-attributes.js';

/** The TPM specification the TPM implements: TPMSpecification ::= SEQUENCE { family UTF8String, level INTEGER, revision INTEGER }. */
export interface TpmSpec {
  /** "1.2" or "2.0". */
  family: string;
  level: number;
  /** As the spec's own number: 116 is revision 1.16, 138 is 1.38. */
  revision: number;
}

const TPM_SPECIFICATION = '2.23.133.2.16';

export function tpmSpec(cert: X509): TpmSpec | null {
  const der = directoryAttribute(cert, TPM_SPECIFICATION);
  if (!der) return null;
  const seq = readTlv(der, 0);
  const [family, level, revision, ...rest] = seq.tag === TAG.sequence && seq.end === der.length ? children(der, seq) : [];
  if (family?.tag !== TAG.utf8 || level?.tag !== TAG.integer || revision?.tag !== TAG.integer || rest.length > 0) {
    throw new ParseError('ek-cert-malformed', 'the TPMSpecification attribute is not SEQUENCE { UTF8String, INTEGER, INTEGER }');
  }
  return { family: Buffer.from(value(der, family)).toString('utf8'), level: smallInt(der, level), revision: smallInt(der, revision) };
}

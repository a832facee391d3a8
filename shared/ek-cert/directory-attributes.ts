import { id_ce_subjectDirectoryAttributes, SubjectDirectoryAttributes } from '@peculiar/asn1-x509';
import { ParseError } from '../errors.js';
import { type X509, extension } from './certificate.js';

/** The DER of the one value of the subjectDirectoryAttributes attribute `oid`, or null when the certificate has none. */
export function directoryAttribute(cert: X509, oid: string): Uint8Array | null {
  const attributes = extension(cert.extensions, id_ce_subjectDirectoryAttributes, SubjectDirectoryAttributes) ?? [];
  const found = attributes.filter((a) => a.type === oid);
  if (found.length === 0) return null;
  if (found.length > 1 || found[0]!.values.length !== 1) throw new ParseError('ek-cert-malformed', `the directory attribute ${oid} is given more than once`);
  return new Uint8Array(found[0]!.values[0]!);
}

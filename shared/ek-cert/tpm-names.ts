import { id_ce_subjectAltName, SubjectAlternativeName } from '@peculiar/asn1-x509';
import { type X509, extension } from './certificate.js';
import { distinguishedName, type NameAttribute } from './names.js';

/** The TPM an EK certificate names (TCG EK Credential Profile: the subjectAltName's directoryName). */
export interface TpmNames {
  /** `id:` and the TCG vendor ID in hex, e.g. id:53544D20. */
  manufacturer: string | null;
  /** The vendor ID's four bytes as text when they are printable (STM, IFX, NTC, ...). */
  vendor: string | null;
  model: string | null;
  /** The firmware version, e.g. id:0D0C. */
  version: string | null;
}

const OID = { manufacturer: '2.23.133.2.1', model: '2.23.133.2.2', version: '2.23.133.2.3' } as const;

/**
 * The TPM's maker, model and version, from the subjectAltName's directoryNames (where the
 * profile puts them, as one RDN each or as one multi-valued RDN), else from the subject.
 */
export function tpmNames(cert: X509): TpmNames {
  const san = extension(cert.extensions, id_ce_subjectAltName, SubjectAlternativeName) ?? [];
  const fromSan = san.flatMap((g) => (g.directoryName ? distinguishedName(g.directoryName).flat() : []));
  const find = (oid: string): string | null => pick(fromSan, oid) ?? pick(cert.subject.flat(), oid);
  const manufacturer = find(OID.manufacturer);
  return { manufacturer, vendor: vendorText(manufacturer), model: find(OID.model), version: find(OID.version) };
}

function pick(attributes: NameAttribute[], oid: string): string | null {
  return attributes.find((a) => a.type === oid)?.value ?? null;
}

function vendorText(manufacturer: string | null): string | null {
  const hex = manufacturer?.match(/^id:([0-9a-f]{8})$/i)?.[1];
  if (!hex) return null;
  const text = Buffer.from(hex, 'hex')
    .toString('latin1')
    .replace(/[\0 ]+$/, '');
  return /^[\x21-\x7e]+( [\x21-\x7e]+)*$/.test(text) ? text : null;
}

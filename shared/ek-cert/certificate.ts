import { AsnConvert, AsnParser } from '@peculiar/asn1-schema';
import {
  BasicConstraints,
  Certificate,
  type Extension,
  id_ce_basicConstraints,
  id_ce_keyUsage,
  KeyUsage,
  KeyUsageFlags,
  type SubjectPublicKeyInfo,
} from '@peculiar/asn1-x509';
import { toHex } from '../bytes/hex.js';
import { errorMessage, ParseError } from '../errors.js';
import { readTlv } from './der.js';
import { type DistinguishedName, distinguishedName } from './names.js';

/** The parts of an X.509 certificate fleet reads, for an EK certificate and for the CA certificates over it alike. */
export interface X509 {
  der: Uint8Array;
  /** The bytes the signature covers. */
  tbs: Uint8Array;
  signatureAlgorithm: string;
  signature: Uint8Array;
  /** Upper-case hex, without the DER sign byte (as openssl prints it). */
  serial: string;
  issuer: DistinguishedName;
  subject: DistinguishedName;
  notBefore: Date;
  notAfter: Date;
  spki: SubjectPublicKeyInfo;
  spkiDer: Uint8Array;
  extensions: Extension[];
  /** basicConstraints says cA, and keyUsage (when present) allows keyCertSign. */
  mayIssue: boolean;
}

/** Parses exactly one DER certificate; anything else is ek-cert-malformed, never an exception of the ASN.1 library. */
export function parseX509(der: Uint8Array): X509 {
  const outer = readTlv(der, 0);
  if (outer.end !== der.length) throw new ParseError('ek-cert-malformed', `${der.length - outer.end} bytes follow the certificate`, outer.end);
  let cert: Certificate;
  try {
    cert = AsnParser.parse(der, Certificate);
  } catch (err) {
    throw new ParseError('ek-cert-malformed', `not an X.509 certificate: ${errorMessage(err)}`);
  }
  const tbs = cert.tbsCertificate;
  const extensions = tbs.extensions ?? [];
  const notBefore = tbs.validity.notBefore.getTime();
  const notAfter = tbs.validity.notAfter.getTime();
  if (Number.isNaN(notBefore.getTime()) || Number.isNaN(notAfter.getTime())) throw new ParseError('ek-cert-malformed', 'a validity date is not a date');
  const serial = serialText(tbs.serialNumber);
  return {
    der,
    tbs: new Uint8Array(cert.tbsCertificateRaw!),
    signatureAlgorithm: cert.signatureAlgorithm.algorithm,
    signature: new Uint8Array(cert.signatureValue),
    serial,
    issuer: distinguishedName(tbs.issuer),
    subject: distinguishedName(tbs.subject),
    notBefore,
    notAfter,
    spki: tbs.subjectPublicKeyInfo,
    spkiDer: new Uint8Array(AsnConvert.serialize(tbs.subjectPublicKeyInfo)),
    extensions,
    mayIssue: mayIssue(extensions),
  };
}

/** A certificate serial number as fleet shows and compares it: upper-case hex, without the DER sign byte (as openssl prints it). */
export function serialText(serial: ArrayBuffer): string {
  return toHex(new Uint8Array(serial))
    .replace(/^(00)+(?=.)/, '')
    .toUpperCase();
}

/** The value of the extension with this OID, decoded as `type`, or null when the certificate has none. */
export function extension<T>(extensions: Extension[], oid: string, type: new () => T): T | null {
  const e = extensions.find((x) => x.extnID === oid);
  if (!e) return null;
  try {
    return AsnParser.parse(e.extnValue, type);
  } catch (err) {
    throw new ParseError('ek-cert-malformed', `the extension ${oid} does not decode: ${errorMessage(err)}`);
  }
}

function mayIssue(extensions: Extension[]): boolean {
  const basic = extension(extensions, id_ce_basicConstraints, BasicConstraints);
  const usage = extension(extensions, id_ce_keyUsage, KeyUsage);
  return basic?.cA === true && (usage === null || (usage.toNumber() & KeyUsageFlags.keyCertSign) !== 0);
}

import { AsnParser } from '@peculiar/asn1-schema';
import type { Extension, GeneralName } from '@peculiar/asn1-x509';
import { AttributeCertificate } from '@peculiar/asn1-x509-attr';
import { errorMessage } from '../errors.js';
import { serialText } from '../ek-cert/certificate.js';
import { children, readTlv, type Tlv } from '../ek-cert/der.js';
import { type DistinguishedName, distinguishedName } from '../ek-cert/names.js';
import type { Signed } from '../ek-cert/signature.js';
import { malformed, oid, sequence, TAGS } from './fields.js';

/** The certificate another one names by its issuer and serial number (IssuerSerial). */
export interface IssuerSerial {
  issuer: DistinguishedName;
  /** As serialText writes it, so that it compares with an X509's serial. */
  serial: string;
}

/** The parts of an X.509 attribute certificate (RFC 5755) fleet reads; what it signs is its acinfo. */
export interface AttributeCert extends Signed {
  der: Uint8Array;
  serial: string;
  /** The certificate the attribute certificate is about: for a platform certificate the EK certificate, for a delta one its base platform certificate. */
  holder: IssuerSerial;
  notBefore: Date;
  notAfter: Date;
  /** Each attribute's type and each of its values, as elements of `der` (so that a reader's offsets are the certificate's), in the certificate's order. */
  attributes: Array<{ type: string; values: Tlv[] }>;
  extensions: Extension[];
}

/** Parses exactly one DER attribute certificate; anything else is platform-cert-malformed, never an exception of the ASN.1 library. */
export function parseAttributeCertificate(der: Uint8Array): AttributeCert {
  const outer = readTlv(der, 0);
  if (outer.end !== der.length) throw malformed(`${der.length - outer.end} bytes follow the certificate`, outer.end);
  const acinfo = children(der, outer)[0];
  if (acinfo?.tag !== TAGS.sequence) throw malformed('the certificate holds no acinfo SEQUENCE', outer.start);
  let cert: AttributeCertificate;
  try {
    cert = AsnParser.parse(der, AttributeCertificate);
  } catch (err) {
    throw malformed(`not an X.509 attribute certificate: ${errorMessage(err)}`);
  }
  const info = cert.acinfo;
  if (info.version !== 1) throw malformed(`the attribute certificate is of version ${info.version + 1}, not 2`);
  if (info.signature.algorithm !== cert.signatureAlgorithm.algorithm) throw malformed('the signature algorithm it signs is not the one it is signed with');
  const base = info.holder.baseCertificateID;
  if (!base) throw malformed('the holder names no certificate by issuer and serial (baseCertificateID)');
  const notBefore = info.attrCertValidityPeriod.notBeforeTime;
  const notAfter = info.attrCertValidityPeriod.notAfterTime;
  if (Number.isNaN(notBefore.getTime()) || Number.isNaN(notAfter.getTime())) throw malformed('a validity date is not a date');
  return {
    der,
    tbs: der.subarray(acinfo.start, acinfo.end),
    signatureAlgorithm: cert.signatureAlgorithm.algorithm,
    signature: new Uint8Array(cert.signatureValue),
    serial: serialText(info.serialNumber),
    issuer: directoryName(info.issuer.v2Form?.issuerName ?? info.issuer.v1Form ?? [], 'the issuer'),
    holder: { issuer: directoryName(base.issuer, "the holder's issuer"), serial: serialText(base.serial) },
    notBefore,
    notAfter,
    attributes: attributes(der, acinfo),
    extensions: info.extensions ?? [],
  };
}

/** The acinfo's attributes, its seventh field: SEQUENCE OF Attribute ::= SEQUENCE { type OBJECT IDENTIFIER, values SET OF ANY }. */
function attributes(der: Uint8Array, acinfo: Tlv): AttributeCert['attributes'] {
  const field = children(der, acinfo)[6];
  if (!field) throw malformed('the acinfo has no attributes', acinfo.start);
  return sequence(der, field, 'the attributes').map((a) => {
    const [type, values, ...rest] = sequence(der, a, 'an attribute');
    if (!type || values?.tag !== 0x31 || rest.length > 0) throw malformed('an attribute is not { type, SET OF values }', a.start);
    return { type: oid(der, type, "an attribute's type"), values: children(der, values) };
  });
}

/** The first directoryName of GeneralNames, as HIRS reads an attribute certificate's issuer and holder. */
export function directoryName(names: GeneralName[], what: string): DistinguishedName {
  const name = names.find((g) => g.directoryName)?.directoryName;
  if (!name) throw malformed(`${what} has no directory name`);
  return distinguishedName(name);
}

/** The one value of the attribute `type`, an element of cert.der, or null when the certificate has none; twice, or with several values, is refused. */
export function attribute(cert: AttributeCert, type: string, what: string): Tlv | null {
  const found = cert.attributes.filter((a) => a.type === type);
  if (found.length === 0) return null;
  if (found.length > 1 || found[0]!.values.length !== 1) throw malformed(`the ${what} attribute is given more than once`);
  return found[0]!.values[0]!;
}

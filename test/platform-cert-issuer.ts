/**
 * Test support: a CA, and TCG platform certificates it issues for a given EK certificate, so a
 * test can present a machine (a swtpm's EK certificate, an SMBIOS serial) with a platform
 * certificate as a maker would ship it. Not shipped.
 */
import { generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import { AsnConvert, AsnParser, OctetString } from '@peculiar/asn1-schema';
import {
  AlgorithmIdentifier,
  Attribute,
  AttributeTypeAndValue,
  AttributeValue,
  BasicConstraints,
  Certificate,
  CertificatePolicies,
  DisplayText,
  Extension,
  Extensions,
  GeneralName,
  GeneralNames,
  id_ce_basicConstraints,
  id_ce_certificatePolicies,
  id_ce_keyUsage,
  id_ce_subjectAltName,
  KeyUsage,
  KeyUsageFlags,
  Name,
  PolicyInformation,
  PolicyQualifierInfo,
  RelativeDistinguishedName,
  SubjectAlternativeName,
  SubjectPublicKeyInfo,
  TBSCertificate,
  UserNotice,
  Validity,
} from '@peculiar/asn1-x509';
import { AttCertIssuer, AttCertValidityPeriod, AttributeCertificate, AttributeCertificateInfo, Holder, IssuerSerial, V2Form } from '@peculiar/asn1-x509-attr';

const ECDSA_SHA256 = '1.2.840.10045.4.3.2';
const CN = '2.5.4.3';

/** A self-signed CA (ECDSA P-256): its certificate's DER and PEM, its name, and its private key. */
export interface TestCa {
  der: Uint8Array;
  pem: string;
  name: Name;
  key: KeyObject;
}

const serialize = (v: unknown): Uint8Array => new Uint8Array(AsnConvert.serialize(v));
const ecdsa = (data: Uint8Array, key: KeyObject): ArrayBuffer => new Uint8Array(sign('sha256', data, key)).buffer;
const nameOf = (cn: string): Name =>
  new Name([new RelativeDistinguishedName([new AttributeTypeAndValue({ type: CN, value: new AttributeValue({ utf8String: cn }) })])]);
const extension = (extnID: string, value: unknown, critical = false): Extension =>
  new Extension({ extnID, critical, extnValue: new OctetString(serialize(value)) });
/** A positive serial number of 16 random bytes. */
const serialNumber = (): ArrayBuffer => new Uint8Array([0x01, ...randomBytes(15)]).buffer;

export function makeTestCa(cn = 'Test Platform CA', days = 365): TestCa {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const name = nameOf(cn);
  const now = Date.now();
  const usage = new KeyUsage(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign);
  const tbs = new TBSCertificate({
    version: 2,
    serialNumber: serialNumber(),
    signature: new AlgorithmIdentifier({ algorithm: ECDSA_SHA256 }),
    issuer: name,
    validity: new Validity({ notBefore: new Date(now - 60_000), notAfter: new Date(now + days * 86_400_000) }),
    subject: name,
    subjectPublicKeyInfo: AsnParser.parse(publicKey.export({ type: 'spki', format: 'der' }), SubjectPublicKeyInfo),
    extensions: new Extensions([extension(id_ce_basicConstraints, new BasicConstraints({ cA: true }), true), extension(id_ce_keyUsage, usage, true)]),
  });
  const tbsDer = serialize(tbs);
  const cert = new Certificate({
    tbsCertificate: tbs,
    signatureAlgorithm: new AlgorithmIdentifier({ algorithm: ECDSA_SHA256 }),
    signatureValue: ecdsa(tbsDer, privateKey),
  });
  const der = serialize(cert);
  const pem = `-----BEGIN CERTIFICATE-----\n${Buffer.from(der)
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')}\n-----END CERTIFICATE-----\n`;
  return { der, pem, name, key: privateKey };
}

/** What the platform certificate says of the platform; the serials the machine's SMBIOS would report. */
export interface PlatformFields {
  platformSerial: string;
  manufacturer?: string;
  model?: string;
  version?: string;
  /** Put in a platformConfiguration-v2 component of the TCG class Containers (a chassis). */
  chassisSerial?: string;
  /** Put in a platformConfiguration-v2 component of the TCG class Motherboard (the baseboard). */
  baseboardSerial?: string;
  notBefore?: Date;
  notAfter?: Date;
}

/** A DER element of `tag` over `parts` (enough of DER for the TCG attributes' values). */
function der(tag: number, ...parts: Uint8Array[]): Uint8Array {
  const body = Buffer.concat(parts);
  const n = body.length;
  const length = n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
  return new Uint8Array(Buffer.concat([Buffer.from([tag, ...length]), body]));
}
const utf8 = (s: string, tag = 0x0c) => der(tag, Buffer.from(s, 'utf8'));
function oidDer(dotted: string): Uint8Array {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * a! + b!];
  for (const arc of rest) {
    const chunk = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return der(0x06, Buffer.from(bytes));
}
const integer = (n: number) => der(0x02, Buffer.from([n]));
const attribute = (type: string, value: Uint8Array) => new Attribute({ type, values: [value.slice().buffer] });

/**
 * A base platform certificate (Platform Certificate Profile layout, "TCG Trusted Platform
 * Endorsement") whose holder is the EK certificate `ekCertificate` (DER): its issuer name, as
 * encoded there, and its serial number; signed by `ca` with ECDSA P-256 and SHA-256.
 */
export function issuePlatformCertificate(ca: TestCa, ekCertificate: Uint8Array, fields: PlatformFields): Uint8Array {
  const ek = AsnParser.parse(ekCertificate, Certificate).tbsCertificate;
  const now = Date.now();
  const san = new SubjectAlternativeName([
    new GeneralName({
      directoryName: new Name(
        (
          [
            ['2.23.133.5.1.1', fields.manufacturer ?? 'fleet test'],
            ['2.23.133.5.1.4', fields.model ?? 'swtpm machine'],
            ['2.23.133.5.1.5', fields.version ?? '1.0'],
            ['2.23.133.5.1.6', fields.platformSerial],
          ] as const
        ).map(([type, v]) => new RelativeDistinguishedName([new AttributeTypeAndValue({ type, value: new AttributeValue({ utf8String: v }) })])),
      ),
    }),
  ]);
  const notice = new UserNotice({ explicitText: new DisplayText({ utf8String: 'TCG Trusted Platform Endorsement' }) });
  const policies = new CertificatePolicies([
    new PolicyInformation({
      policyIdentifier: '1.2.3.4',
      policyQualifiers: [new PolicyQualifierInfo({ policyQualifierId: '1.3.6.1.5.5.7.2.2', qualifier: serialize(notice).slice().buffer })],
    }),
  ]);
  const components: Uint8Array[] = [];
  const component = (classValue: number, model: string, serial: string) =>
    der(
      0x30,
      der(
        0x30,
        oidDer('2.23.133.18.3.1'),
        der(0x04, Buffer.from([classValue >>> 24, (classValue >>> 16) & 0xff, (classValue >>> 8) & 0xff, classValue & 0xff])),
      ),
      utf8(fields.manufacturer ?? 'fleet test'),
      utf8(model),
      utf8(serial, 0x80),
    );
  if (fields.chassisSerial !== undefined) components.push(component(0x00020002, 'chassis', fields.chassisSerial));
  if (fields.baseboardSerial !== undefined) components.push(component(0x00030003, 'baseboard', fields.baseboardSerial));
  const attributes = [
    attribute('2.23.133.2.17', der(0x30, der(0x30, integer(2), integer(0), integer(1)), der(0x04, Buffer.from([0, 0, 0, 1])))),
    attribute('2.23.133.2.25', der(0x30, oidDer('2.23.133.8.2'))),
    attribute('2.23.133.2.23', der(0x30, integer(1), integer(1), integer(19))),
  ];
  if (components.length > 0) attributes.push(attribute('2.23.133.5.1.7.2', der(0x30, der(0xa0, ...components))));
  const info = new AttributeCertificateInfo({
    version: 1,
    holder: new Holder({
      baseCertificateID: new IssuerSerial({ issuer: new GeneralNames([new GeneralName({ directoryName: ek.issuer })]), serial: ek.serialNumber }),
    }),
    issuer: new AttCertIssuer({ v2Form: new V2Form({ issuerName: new GeneralNames([new GeneralName({ directoryName: ca.name })]) }) }),
    signature: new AlgorithmIdentifier({ algorithm: ECDSA_SHA256 }),
    serialNumber: serialNumber(),
    attrCertValidityPeriod: new AttCertValidityPeriod({
      notBeforeTime: fields.notBefore ?? new Date(Math.floor(now / 1000) * 1000 - 60_000),
      notAfterTime: fields.notAfter ?? new Date(Math.floor(now / 1000) * 1000 + 365 * 86_400_000),
    }),
    attributes,
    extensions: new Extensions([extension(id_ce_certificatePolicies, policies), extension(id_ce_subjectAltName, san)]),
  });
  const acinfo = serialize(info);
  return serialize(
    new AttributeCertificate({ acinfo: info, signatureAlgorithm: new AlgorithmIdentifier({ algorithm: ECDSA_SHA256 }), signatureValue: ecdsa(acinfo, ca.key) }),
  );
}

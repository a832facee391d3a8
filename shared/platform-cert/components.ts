import { AsnParser } from '@peculiar/asn1-schema';
import { GeneralNames } from '@peculiar/asn1-x509';
import { errorMessage } from '../errors.js';
import { serialText } from '../ek-cert/certificate.js';
import { children, type Tlv, value } from '../ek-cert/der.js';
import { directoryName, type IssuerSerial } from './attribute-certificate.js';
import { type ComponentClass, componentClass } from './component-class.js';
import { bool, contextTag, malformed, named, oid, sequence, TAGS, text } from './fields.js';
import { type UriReference, uriReference } from './uri-reference.js';

/** A component of the platform as its certificate lists it (ComponentIdentifier, or -v2 with its class and status). */
export interface Component {
  /** Only in the v2 layout. */
  class: ComponentClass | null;
  manufacturer: string;
  model: string;
  serial: string | null;
  revision: string | null;
  /** The manufacturer's private enterprise number, as an OID. */
  manufacturerId: string | null;
  fieldReplaceable: boolean | null;
  addresses: ComponentAddress[];
  /** The component's own platform certificate, by its issuer and serial (componentPlatformCert's genericCertIdentifier). */
  platformCertificate: IssuerSerial | null;
  /** Where the component's own platform certificate is (componentPlatformCertUri). */
  platformCertificateUri: UriReference | null;
  /** What a delta certificate says happened to the component. */
  status: (typeof STATUSES)[number] | null;
}

export interface ComponentAddress {
  /** ethernet-mac, wlan-mac or bluetooth-mac, else the address type's OID. */
  type: string;
  value: string;
}

/** AttributeStatus ::= ENUMERATED { added (0), modified (1), removed (2) }. */
export const STATUSES = ['added', 'modified', 'removed'] as const;

const ADDRESS_TYPES: Record<string, string> = {
  '2.23.133.17.1': 'ethernet-mac',
  '2.23.133.17.2': 'wlan-mac',
  '2.23.133.17.3': 'bluetooth-mac',
};

/**
 * ComponentIdentifier ::= SEQUENCE { [v2: componentClass,] componentManufacturer UTF8String,
 * componentModel UTF8String, then IMPLICIT [0] componentSerial, [1] componentRevision,
 * [2] componentManufacturerId, [3] fieldReplaceable, [4] componentAddresses, and in v2
 * [5] componentPlatformCert, [6] componentPlatformCertUri, [7] status }.
 */
export function component(der: Uint8Array, t: Tlv, version: 1 | 2, what: string): Component {
  const fields = sequence(der, t, what);
  const head = version === 2 ? 3 : 2;
  if (fields.length < head) throw malformed(`${what} lacks its ${version === 2 ? 'class, ' : ''}manufacturer or model`, t.start);
  const [manufacturer, model] = fields.slice(head - 2, head);
  const out: Component = {
    class: version === 2 ? componentClass(der, fields[0]!, `${what}'s class`) : null,
    manufacturer: text(der, manufacturer!, `${what}'s manufacturer`),
    model: text(der, model!, `${what}'s model`),
    serial: null,
    revision: null,
    manufacturerId: null,
    fieldReplaceable: null,
    addresses: [],
    platformCertificate: null,
    platformCertificateUri: null,
    status: null,
  };
  let last = -1;
  for (const f of fields.slice(head)) {
    const tag = contextTag(f);
    if (tag === null || tag <= last || tag > (version === 2 ? 7 : 4))
      throw malformed(`${what} holds an element out of the profile's order, or not in it`, f.start);
    last = tag;
    const field = `${what}'s [${tag}]`;
    if (tag === 0) out.serial = text(der, f, `${what}'s serial`, true);
    else if (tag === 1) out.revision = text(der, f, `${what}'s revision`, true);
    else if (tag === 2) out.manufacturerId = oid(der, f, `${what}'s manufacturer ID`, true);
    else if (tag === 3) out.fieldReplaceable = bool(der, f, `${what}'s fieldReplaceable`);
    else if (tag === 4) out.addresses = sequence(der, f, field, true).map((a, i) => address(der, a, `${what}'s address ${i}`));
    else if (tag === 5) out.platformCertificate = certificateIdentifier(der, f, `${what}'s componentPlatformCert`);
    else if (tag === 6) out.platformCertificateUri = uriReference(der, f, `${what}'s componentPlatformCertUri`, true);
    else out.status = named(der, f, STATUSES, `${what}'s status`);
  }
  return out;
}

/** ComponentAddress ::= SEQUENCE { addressType OBJECT IDENTIFIER, addressValue UTF8String }. */
function address(der: Uint8Array, t: Tlv, what: string): ComponentAddress {
  const [type, value, ...rest] = t.tag === TAGS.sequence ? children(der, t) : [];
  if (!type || !value || rest.length > 0) throw malformed(`${what} is not { type, value }`, t.start);
  const oidText = oid(der, type, `${what}'s type`);
  return { type: ADDRESS_TYPES[oidText] ?? oidText, value: text(der, value, `${what}'s value`) };
}

/**
 * CertificateIdentifier ::= SEQUENCE { attributeCertIdentifier [0] IMPLICIT (a hash of the
 * certificate's signature) OPTIONAL, genericCertIdentifier [1] IMPLICIT IssuerSerial OPTIONAL }:
 * the issuer and serial, when given.
 */
function certificateIdentifier(der: Uint8Array, t: Tlv, what: string): IssuerSerial | null {
  const generic = sequence(der, t, what, true).find((f) => contextTag(f) === 1);
  if (!generic) return null;
  const [names, serial] = sequence(der, generic, `${what}'s genericCertIdentifier`, true);
  if (names?.tag !== TAGS.sequence || serial?.tag !== TAGS.integer) throw malformed(`${what}'s genericCertIdentifier is not { issuer, serial }`, generic.start);
  let issuer: GeneralNames;
  try {
    issuer = AsnParser.parse(der.subarray(names.start, names.end), GeneralNames);
  } catch (err) {
    throw malformed(`${what}'s issuer does not decode: ${errorMessage(err)}`, names.start);
  }
  return { issuer: directoryName(issuer, `${what}'s issuer`), serial: serialText(value(der, serial).slice().buffer) };
}

import { id_ce_subjectAltName, SubjectAlternativeName } from '@peculiar/asn1-x509';
import { extension } from '../ek-cert/certificate.js';
import type { AttributeCert } from './attribute-certificate.js';
import type { PlatformConfiguration } from './configuration.js';
import { CREDENTIAL_TYPES, type CredentialType } from './credential-type.js';
import { children, readTlv } from '../ek-cert/der.js';
import { malformed, oid, TAGS } from './fields.js';

/** The platform a platform certificate names: its maker, model and version, and the serials that identify the machine. */
export interface PlatformIdentity {
  manufacturer: string | null;
  /** The maker's private enterprise number, as an OID (tcg-at-platformManufacturerId). */
  manufacturerId: string | null;
  model: string | null;
  version: string | null;
  /** The platform's serial: tcg-at-platformSerial; in TCG 1.2 certificates the baseboard's, as HIRS reads it. */
  serial: string | null;
  /** From TCG 1.2's combined "chassis,baseboard" field, or the serial of the component whose class is a chassis. */
  chassisSerial: string | null;
  /** From TCG 1.2's combined field, or the serial of the component whose class is the baseboard (motherboard). */
  baseboardSerial: string | null;
}

/** The subjectAltName directoryName attributes of each layout. */
const FIELDS = {
  '1.2': { manufacturer: '2.23.133.2.4', model: '2.23.133.2.5', version: '2.23.133.2.6', serial: '2.23.133.2.23', chassisAndBaseboard: '2.23.133.5.1.6' },
  '2.0': { manufacturer: '2.23.133.5.1.1', manufacturerId: '2.23.133.5.1.2', model: '2.23.133.5.1.4', version: '2.23.133.5.1.5', serial: '2.23.133.5.1.6' },
} as const;

/**
 * Reads the platform's fields from the subjectAltName's directoryNames, by the layout the
 * credential type names, as HIRS does. TCG 1.2 Intel certificates put "chassis,baseboard" in one
 * field, whose second part HIRS takes as the platform serial; with another number of parts HIRS
 * takes neither, and neither does fleet. In the profile's layout the chassis and baseboard serials
 * are those of the configuration's components of that class (the first that has one).
 */
export function platformIdentity(cert: AttributeCert, type: CredentialType, configuration: PlatformConfiguration | null): PlatformIdentity {
  const layout = CREDENTIAL_TYPES[type];
  const values = new Map<string, { text: string; any: Uint8Array | null }>();
  for (const g of extension(cert.extensions, id_ce_subjectAltName, SubjectAlternativeName) ?? []) {
    for (const a of (g.directoryName ?? []).flat()) {
      const v = { text: a.value.toString(), any: a.value.anyValue ? new Uint8Array(a.value.anyValue) : null };
      const seen = values.get(a.type);
      if (seen && seen.text !== v.text) throw malformed(`the subjectAltName gives ${a.type} twice, differently`);
      values.set(a.type, v);
    }
  }
  const get = (oidText: string): string | null => values.get(oidText)?.text ?? null;
  const serialOf = (role: 'chassis' | 'baseboard'): string | null =>
    configuration?.components.find((c) => c.class?.role === role && c.serial !== null)?.serial ?? null;
  if (layout === '1.2') {
    const f = FIELDS['1.2'];
    const combined = get(f.chassisAndBaseboard)?.split(',');
    const [chassis, baseboard] = combined?.length === 2 ? combined : [null, null];
    return {
      manufacturer: get(f.manufacturer),
      manufacturerId: null,
      model: get(f.model),
      version: get(f.version),
      serial: baseboard ?? get(f.serial),
      chassisSerial: chassis,
      baseboardSerial: baseboard,
    };
  }
  const f = FIELDS['2.0'];
  const id = values.get(f.manufacturerId)?.any;
  return {
    manufacturer: get(f.manufacturer),
    manufacturerId: id ? manufacturerId(id) : null,
    model: get(f.model),
    version: get(f.version),
    serial: get(f.serial),
    chassisSerial: serialOf('chassis'),
    baseboardSerial: serialOf('baseboard'),
  };
}

/** ManufacturerId ::= SEQUENCE { manufacturerIdentifier PrivateEnterpriseNumber }, or the OID alone. */
function manufacturerId(der: Uint8Array): string {
  const what = 'the platformManufacturerId';
  const t = readTlv(der, 0);
  const [inner, ...rest] = t.tag === TAGS.sequence ? children(der, t) : [t];
  if (t.end !== der.length || !inner || rest.length > 0) throw malformed(`${what} is not { manufacturerIdentifier }`);
  return oid(der, inner, what);
}

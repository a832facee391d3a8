import { type Tlv, value } from '../ek-cert/der.js';
import { malformed, sequence, small, TAGS, text } from './fields.js';

/** A TCG specification's version: major.minor.revision. */
export interface SpecVersion {
  major: number;
  minor: number;
  revision: number;
}

/** The TCG platform specification the platform follows, and its class (1 is the PC Client). */
export interface PlatformSpec extends SpecVersion {
  platformClass: number;
}

/** TCGSpecificationVersion ::= SEQUENCE { majorVersion INTEGER, minorVersion INTEGER, revision INTEGER }. */
function version(der: Uint8Array, t: Tlv, what: string): SpecVersion {
  const [major, minor, revision, ...rest] = sequence(der, t, what);
  if (!major || !minor || !revision || rest.length > 0) throw malformed(`${what} is not { major, minor, revision }`, t.start);
  return {
    major: small(der, major, `${what}'s major version`, TAGS.integer),
    minor: small(der, minor, `${what}'s minor version`, TAGS.integer),
    revision: small(der, revision, `${what}'s revision`, TAGS.integer),
  };
}

/**
 * TCGPlatformSpecification ::= SEQUENCE { version TCGSpecificationVersion, platformClass
 * OCTET STRING (SIZE(4)) }; TCG 1.2 certificates write the class as a string of its digits.
 */
export function platformSpec(der: Uint8Array, t: Tlv): PlatformSpec {
  const what = 'the TCGPlatformSpecification attribute';
  const [versionField, classField, ...rest] = sequence(der, t, what);
  if (!versionField || !classField || rest.length > 0) throw malformed(`${what} is not { version, platformClass }`, t.start);
  let platformClass: number;
  if (classField.tag === TAGS.octetString) {
    const bytes = value(der, classField);
    if (bytes.length !== 4) throw malformed(`${what}'s platformClass is ${bytes.length} bytes, not 4`, classField.start);
    platformClass = Buffer.from(bytes).readUInt32BE(0);
  } else {
    const digits = text(der, classField, `${what}'s platformClass`);
    if (!/^\d{1,9}$/.test(digits)) throw malformed(`${what}'s platformClass is neither four bytes nor a number`, classField.start);
    platformClass = Number(digits);
  }
  return { ...version(der, versionField, `${what}'s version`), platformClass };
}

/**
 * TCGCredentialSpecification: the version of the Platform Certificate Profile the certificate
 * follows. Intel's Transparent Supply Chain certificates wrap it in a second SEQUENCE, which HIRS
 * reads through; so does fleet.
 */
export function credentialSpec(der: Uint8Array, t: Tlv): SpecVersion {
  const what = 'the TCGCredentialSpecification attribute';
  const fields = sequence(der, t, what);
  return fields.length === 1 && fields[0]!.tag === TAGS.sequence ? version(der, fields[0]!, what) : version(der, t, what);
}

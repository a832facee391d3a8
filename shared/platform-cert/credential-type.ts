import { AsnParser } from '@peculiar/asn1-schema';
import { CertificatePolicies, id_ce_certificatePolicies, UserNotice } from '@peculiar/asn1-x509';
import { errorMessage } from '../errors.js';
import { extension } from '../ek-cert/certificate.js';
import { type AttributeCert, attribute } from './attribute-certificate.js';
import { malformed, oid, sequence } from './fields.js';

/**
 * The certificatePolicies userNotice that makes an attribute certificate a platform certificate,
 * and which layout its platform fields follow: TCG 1.2's (tcg-at-platformManufacturer 2.23.133.2.4
 * and on) or the Platform Certificate Profile's (tcg-at-platformManufacturerStr 2.23.133.5.1.1 and on).
 */
export const CREDENTIAL_TYPES = {
  'TCPA Trusted Platform Endorsement': '1.2',
  'TCG Trusted Platform Endorsement': '2.0',
} as const;

export type CredentialType = keyof typeof CREDENTIAL_TYPES;

const USER_NOTICE = '1.3.6.1.5.5.7.2.2';
const TCG_CREDENTIAL_TYPE = '2.23.133.2.25';
/** tcg-kp-PlatformAttributeCertificate and tcg-kp-DeltaPlatformAttributeCertificate. */
const KINDS: Record<string, 'base' | 'delta'> = { '2.23.133.8.2': 'base', '2.23.133.8.5': 'delta' };

/** The userNotice's text, as HIRS reads it to tell a platform certificate (and its layout) from any other attribute certificate. */
export function credentialType(cert: AttributeCert): CredentialType {
  const policies = extension(cert.extensions, id_ce_certificatePolicies, CertificatePolicies) ?? [];
  const notices = policies.flatMap((p) => p.policyQualifiers ?? []).filter((q) => q.policyQualifierId === USER_NOTICE);
  const texts = notices.map((q) => {
    try {
      return AsnParser.parse(q.qualifier, UserNotice).explicitText?.toString() ?? '';
    } catch (err) {
      throw malformed(`a certificatePolicies userNotice does not decode: ${errorMessage(err)}`);
    }
  });
  const type = texts.find((t): t is CredentialType => Object.hasOwn(CREDENTIAL_TYPES, t));
  if (type) return type;
  const named = texts.length === 0 ? 'no certificatePolicies userNotice' : `the userNotice ${texts.map((t) => JSON.stringify(t)).join(', ')}`;
  throw malformed(`not a platform certificate: ${named}, where a platform certificate says "${Object.keys(CREDENTIAL_TYPES).join('" or "')}"`);
}

/**
 * A platform certificate of the platform as built (base), or one that records a change to it
 * (delta), by tcg-at-tcgCredentialType; a certificate without that attribute (TCG 1.2) is a base one.
 */
export function platformKind(cert: AttributeCert): { kind: 'base' | 'delta'; credentialTypeOid: string | null } {
  const t = attribute(cert, TCG_CREDENTIAL_TYPE, 'tcgCredentialType');
  if (!t) return { kind: 'base', credentialTypeOid: null };
  const what = 'the tcgCredentialType attribute';
  const [type, ...rest] = sequence(cert.der, t, what);
  if (!type || rest.length > 0) throw malformed(`${what} is not { certificateType }`, t.start);
  const credentialTypeOid = oid(cert.der, type, what);
  const kind = KINDS[credentialTypeOid];
  if (!kind) {
    throw malformed(`${what} names ${credentialTypeOid}, neither a platform (2.23.133.8.2) nor a delta platform certificate (2.23.133.8.5)`, type.start);
  }
  return { kind, credentialTypeOid };
}

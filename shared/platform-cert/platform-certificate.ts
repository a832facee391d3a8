import {
  AuthorityInfoAccessSyntax,
  AuthorityKeyIdentifier,
  id_ad_caIssuers,
  id_pe_authorityInfoAccess,
  id_ce_authorityKeyIdentifier,
} from '@peculiar/asn1-x509';
import { toHex } from '../bytes/hex.js';
import { ParseError } from '../errors.js';
import { extension } from '../ek-cert/certificate.js';
import { isPem, pemBlocks } from '../ek-cert/pem.js';
import { type AttributeCert, attribute, parseAttributeCertificate } from './attribute-certificate.js';
import { CONFIGURATION_OIDS, type PlatformConfiguration, platformConfiguration } from './configuration.js';
import { type CredentialType, credentialType, platformKind } from './credential-type.js';
import type { Tlv } from '../ek-cert/der.js';
import { malformed } from './fields.js';
import { type PlatformIdentity, platformIdentity } from './platform-identity.js';
import { credentialSpec, type PlatformSpec, platformSpec, type SpecVersion } from './specification.js';
import { type TbbAssertions, tbbAssertions } from './tbb-assertions.js';
import { type UriReference, uriReference } from './uri-reference.js';

/** A TCG platform certificate read: the attribute certificate's parts and what it says of the platform. */
export interface PlatformCertificate {
  encoding: 'der' | 'pem';
  cert: AttributeCert;
  /** The certificatePolicies userNotice: TCG 1.2's "TCPA ..." or the profile's "TCG Trusted Platform Endorsement". */
  credentialType: CredentialType;
  /** base: the platform as built; delta: a change to it, whose holder is the base certificate, not the EK certificate. */
  kind: 'base' | 'delta';
  /** tcg-at-tcgCredentialType's OID, when the certificate carries it. */
  credentialTypeOid: string | null;
  platform: PlatformIdentity;
  spec: PlatformSpec | null;
  /** The Platform Certificate Profile's version the certificate follows (tcg-at-tcgCredentialSpecification). */
  credentialSpec: SpecVersion | null;
  tbb: TbbAssertions | null;
  configuration: PlatformConfiguration | null;
  /** tcg-at-platformConfigUri: where the platform's configuration is written. */
  configurationUri: UriReference | null;
  /** The issuer's key identifier, hex, from authorityKeyIdentifier. */
  authorityKeyId: string | null;
  /** Where the issuer's certificate is published (authorityInfoAccess caIssuers). */
  caIssuersUri: string | null;
}

const LABELS = ['ATTRIBUTE CERTIFICATE', 'CERTIFICATE'];
const OID = {
  platformSpec: '2.23.133.2.17',
  tbb: '2.23.133.2.19',
  credentialSpec: '2.23.133.2.23',
  configurationUri: '2.23.133.5.1.3',
} as const;

/**
 * Reads a platform certificate as a file holds it: DER, or PEM under ATTRIBUTE CERTIFICATE (or
 * CERTIFICATE, as some makers label it). Bad input is platform-cert-malformed: the DER and PEM
 * readers it shares with EK certificates raise ek-cert-malformed, which here is this code.
 */
export function parsePlatformCertificate(bytes: Uint8Array): PlatformCertificate {
  try {
    return parse(bytes);
  } catch (err) {
    if (err instanceof ParseError && err.code === 'ek-cert-malformed') throw new ParseError('platform-cert-malformed', err.message);
    throw err;
  }
}

function parse(bytes: Uint8Array): PlatformCertificate {
  const pem = isPem(bytes);
  const blocks = pem ? pemBlocks(bytes, LABELS) : [bytes];
  if (blocks.length !== 1) throw malformed(`the PEM text holds ${blocks.length} certificates, not one`);
  const der = blocks[0]!;
  if (der[0] !== 0x30) throw malformed('not a certificate: it does not start with a DER SEQUENCE', 0);
  const cert = parseAttributeCertificate(der);
  const type = credentialType(cert);
  const { kind, credentialTypeOid } = platformKind(cert);
  const configuration = configurationOf(cert);
  const read = <T>(oid: string, what: string, reader: (der: Uint8Array, t: Tlv) => T): T | null => {
    const t = attribute(cert, oid, what);
    return t && reader(cert.der, t);
  };
  const aki = extension(cert.extensions, id_ce_authorityKeyIdentifier, AuthorityKeyIdentifier);
  const aia = extension(cert.extensions, id_pe_authorityInfoAccess, AuthorityInfoAccessSyntax) ?? [];
  return {
    encoding: pem ? 'pem' : 'der',
    cert,
    credentialType: type,
    kind,
    credentialTypeOid,
    platform: platformIdentity(cert, type, configuration),
    spec: read(OID.platformSpec, 'TCGPlatformSpecification', platformSpec),
    credentialSpec: read(OID.credentialSpec, 'TCGCredentialSpecification', credentialSpec),
    tbb: read(OID.tbb, 'TBBSecurityAssertions', tbbAssertions),
    configuration,
    configurationUri: read(OID.configurationUri, 'platformConfigUri', (der, t) => uriReference(der, t, 'the platformConfigUri attribute')),
    authorityKeyId: aki?.keyIdentifier ? toHex(new Uint8Array(aki.keyIdentifier.buffer)) : null,
    caIssuersUri: aia.find((d) => d.accessMethod === id_ad_caIssuers)?.accessLocation.uniformResourceIdentifier ?? null,
  };
}

/** The one platformConfiguration attribute, of either version; both at once is refused. */
function configurationOf(cert: AttributeCert): PlatformConfiguration | null {
  const found = Object.entries(CONFIGURATION_OIDS).flatMap(([oid, version]) => {
    const t = attribute(cert, oid, `platformConfiguration (${oid})`);
    return t ? [platformConfiguration(cert.der, t, version)] : [];
  });
  if (found.length > 1) throw malformed('the certificate holds both a platformConfiguration and a platformConfiguration-v2');
  return found[0] ?? null;
}

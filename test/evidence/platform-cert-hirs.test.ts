import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { toHex } from '../../shared/bytes/hex.js';
import { parseX509 } from '../../shared/ek-cert/certificate.js';
import { type CaCertificate, chainFailureText, verifyChain } from '../../shared/ek-cert/chain.js';
import { parseEkCertificate } from '../../shared/ek-cert/ek-certificate.js';
import { nameText, sameName } from '../../shared/ek-cert/names.js';
import { pemCertificates } from '../../shared/ek-cert/pem.js';
import { checkSignature } from '../../shared/ek-cert/signature.js';
import { PLATFORM_CERTIFICATE, platformChecks } from '../../shared/platform-cert/checks.js';
import type { Component } from '../../shared/platform-cert/components.js';
import { type PlatformCertificate, parsePlatformCertificate } from '../../shared/platform-cert/platform-certificate.js';
import { EXPECTED, HIRS_PLATFORM_FILES, tcgCert } from './tcg-certs.js';

const PC = 'validation/platform_credentials/';
const PC2 = 'validation/platform_credentials_2/';
const pc = (path: string) => parsePlatformCertificate(tcgCert(path));

/** HIRS's words for the component address types, as fleet spells them: "ethernet mac" → ethernet-mac. */
const fleetWord = (hirs: string) => hirs.replaceAll(' ', '-');

/** The components of either configuration layout: HIRS's getPlatformConfigurationV1/V2().getComponentIdentifiers(). */
const components = (p: PlatformCertificate): Component[] => p.configuration?.components ?? [];
const properties = (p: PlatformCertificate) => (p.configuration?.properties ?? []).map((q) => [q.name, q.value]);

/**
 * What fleet read for each field EXPECTED.json transcribes from HIRS's tests, in HIRS's terms. A
 * field is matched whole, its [N] indices passed on. HIRS prints an attribute certificate's issuer
 * as BouncyCastle does: the RDNs in DER order joined by ",".
 */
const READ: Array<[RegExp, (p: PlatformCertificate, file: string, ...i: number[]) => unknown]> = [
  [/^not_before$/, (p) => p.cert.notBefore.toISOString().replace('.000', '')],
  [/^not_after$/, (p) => p.cert.notAfter.toISOString().replace('.000', '')],
  [/^signature_value_hex$/, (p) => toHex(p.cert.signature).toUpperCase()],
  [/^platform_manufacturer$/, (p) => p.platform.manufacturer],
  [/^platform_model$/, (p) => p.platform.model],
  [/^platform_version$/, (p) => p.platform.version],
  [/^platform_serial$/, (p) => p.platform.serial],
  [/^chassis_serial_number$/, (p) => p.platform.chassisSerial],
  [/^issuer$/, (p) => nameText(p.cert.issuer).replaceAll(', ', ',')],
  [/^credential_type$/, (p) => p.credentialType],
  [/^tcg_platform_spec\.(major|minor|revision)$/, (p) => p.spec],
  [/^tcg_platform_spec\.platform_class$/, (p) => String(p.spec?.platformClass)],
  // HIRS's getCertificateType: an X.509 certificate parses as one, an attribute certificate does not.
  [/^certificate_type$/, (_p, file) => (parsesAsX509(file) ? 'X509_CERTIFICATE' : 'ATTRIBUTE_CERTIFICATE')],
  [/^(subject|encoded_public_key)$/, (p) => ('subject' in p.cert || 'spki' in p.cert ? 'present' : null)],
  [/^authority_info_access$/, (p) => p.caIssuersUri],
  [/^authority_key_identifier_hex$/, (p) => p.authorityKeyId],
  [/^platform_configuration_class$/, (p) => `PlatformConfigurationV${p.configuration?.version}`],
  [/^platform_properties_uri$/, (p) => p.configuration?.propertiesUri?.uri],
  [/^platform_properties_uri\.hash_algorithm$/, (p) => p.configuration?.propertiesUri?.hashAlgorithm],
  [/^platform_properties_uri\.hash_value$/, (p) => p.configuration?.propertiesUri?.hashValue],
  [/^(platform_configuration_v2\.)?platform_properties\.count$/, (p) => properties(p).length],
  [/^(?:platform_configuration_v2\.)?platform_properties\[(\d+)\]$/, (p, _f, i) => properties(p)[i!]],
  [/^platform_configuration_v2\.component_identifiers$/, (p) => (p.configuration?.version === 2 && components(p).length > 0 ? 'non-empty' : 'empty')],
  [/^platform_configuration_v2\.component\[(\d+)\]\.is_version2$/, (p, _f, i) => components(p)[i!]!.class !== null],
  [/^components\.count$/, (p) => components(p).length],
  [/^components\[(\d+)\]\.(manufacturer|model|serial|revision)$/, (p, _f, i) => components(p)[i!]],
  [/^components\[(\d+)\]\.field_replaceable$/, (p, _f, i) => components(p)[i!]!.fieldReplaceable],
  [/^components\[(\d+)\]\.addresses$/, (p, _f, i) => (components(p)[i!]!.addresses.length > 0 ? 'non-empty' : 'empty')],
  [/^components\[(\d+)\]\.addresses\[(\d+)\]\.value$/, (p, _f, i, j) => components(p)[i!]!.addresses[j!]!.value],
  [/^components\[(\d+)\]\.addresses\[(\d+)\]\.type$/, (p, _f, i, j) => components(p)[i!]!.addresses[j!]!.type],
  [/^tbb_security_assertion$/, (p) => (p.tbb ? 'present' : 'absent')],
  [/^tbb_security_assertion\.cc_info\.version$/, (p) => p.tbb?.commonCriteria?.version],
  [/^tbb_security_assertion\.cc_info\.profile_oid$/, (p) => p.tbb?.commonCriteria?.profileOid],
  [/^tbb_security_assertion\.fips_level\.version$/, (p) => p.tbb?.fips?.version],
  [/^tbb_security_assertion\.iso9000_uri$/, (p) => p.tbb?.iso9000Uri],
];

function parsesAsX509(file: string): boolean {
  try {
    const bytes = tcgCert(file);
    parseX509(bytes[0] === 0x30 ? new Uint8Array(bytes) : pemCertificates(bytes)[0]!);
    return true;
  } catch {
    return false;
  }
}

/** The value fleet read for one asserted field: the reader's result, narrowed to the field's last name where the reader returns a record. */
function fleetRead(p: PlatformCertificate, file: string, field: string): unknown {
  for (const [re, reader] of READ) {
    const m = re.exec(field);
    if (!m) continue;
    const indices = m
      .slice(1)
      .filter((x) => x !== undefined && /^\d+$/.test(x))
      .map(Number);
    const value = reader(p, file, ...indices);
    const last = field.split('.').at(-1)!;
    return value !== null && typeof value === 'object' && !Array.isArray(value) && last in value ? (value as Record<string, unknown>)[last] : value;
  }
  throw new Error(`no reader for ${field}`);
}

/**
 * The value HIRS's assertion holds fleet to, in fleet's words: an address type's spelling; and a
 * component serial or revision the certificate leaves out, which HIRS's ComponentIdentifier fills
 * with "Not Specified" and fleet reports absent.
 */
function fleetValue(field: string, value: unknown): unknown {
  if (field.endsWith('.type')) return fleetWord(String(value));
  if (/^components\[\d+\]\.(serial|revision)$/.test(field) && value === 'Not Specified') return null;
  return value;
}

/** HIRS refuses Intel_pc1.cer ("Invalid Attribute Credential Type"); every other platform file its tests load parses. */
const REFUSED_BY_HIRS = [`${PC}Intel_pc1.cer`];

describe.each(HIRS_PLATFORM_FILES.filter((f) => !REFUSED_BY_HIRS.includes(f)))('the platform certificate %s', (file) => {
  const p = pc(file);

  it('reads every value HIRS asserts of it', () => {
    for (const a of EXPECTED[file]!.asserted) {
      expect(fleetRead(p, file, a.field), `${a.field} (${a.source})`).toEqual(fleetValue(a.field, a.value));
    }
  });

  it('holds a holder (issuer and serial), an issuer, a serial and dates, as EXPECTED.json observes them', () => {
    const observed = EXPECTED[file]!.observed as { holder: { issuer: string[]; serial_hex: string }; serial_hex: string; issuer: string[] };
    expect(p.cert.holder.serial).toBe(observed.holder.serial_hex.replace(/^(00)+(?=.)/, ''));
    // observed names are in OpenSSL's RFC 2253 order, the reverse of the DER's.
    const rfc2253 = (dn: typeof p.cert.issuer) =>
      [...dn]
        .reverse()
        .map((rdn) => nameText([rdn]))
        .join(',');
    expect(rfc2253(p.cert.holder.issuer)).toBe(observed.holder.issuer[0]);
    expect(rfc2253(p.cert.issuer)).toBe(observed.issuer[0]);
    expect(p.cert.serial).toBe(observed.serial_hex.replace(/^(00)+(?=.)/, ''));
  });
});

describe('the platform fields HIRS copies into an attestation certificate (IssuedCertificateAttributeHelperTest)', () => {
  it('platform_certs_2/Intel_pc.pem names the platform Intel_pc4.pem asserts: Intel, DE3815TYKH, H26998-402', () => {
    const asserted = (field: string) => EXPECTED[`${PC}Intel_pc4.pem`]!.asserted.find((a) => a.field === field)!.value;
    const p = pc('certificates/platform_certs_2/Intel_pc.pem').platform;
    expect([p.manufacturer, p.model, p.version]).toEqual([asserted('platform_manufacturer'), asserted('platform_model'), asserted('platform_version')]);
  });
});

describe('what HIRS and the profile refuse, fleet refuses with the reason', () => {
  const refusals: Array<[string, Uint8Array, RegExp]> = [
    // HIRS: IOException "Invalid Attribute Credential Type: " (PlatformCredentialTest parseValidPlatformCertificate1).
    [`${PC}Intel_pc1.cer, no credential type`, tcgCert(`${PC}Intel_pc1.cer`), /not a platform certificate: no certificatePolicies userNotice/],
    // No HIRS test loads these; HIRS's parser refuses them for the same reason.
    ['fakeIntel_S2600KP_F00F00F00F00.pem, the same', tcgCert('certificates/fakeIntel_S2600KP_F00F00F00F00.pem'), /no certificatePolicies userNotice/],
    ['fakeSGI_J2_F00F00F0.pem, the same', tcgCert('certificates/fakeSGI_J2_F00F00F0.pem'), /no certificatePolicies userNotice/],
    // Its components open with a bare class OCTET STRING where platformConfiguration v1 has the manufacturer; HIRS's ComponentIdentifier throws too.
    [
      `${PC}Intel_nuc1.cer, a component out of the v1 layout`,
      tcgCert(`${PC}Intel_nuc1.cer`),
      /platformConfiguration's component 0's manufacturer is not a string \(at byte 531\)/,
    ],
    ['an EK certificate', tcgCert('certificates/nuc-2/tpmcert.pem'), /not an X\.509 attribute certificate/],
    ['a CA certificate', tcgCert('certificates/fakeCA.pem'), /not an X\.509 attribute certificate/],
    ['nothing', new Uint8Array(0), /does not start with a DER SEQUENCE/],
    ['a public key in PEM', tcgCert(`${PC}ca.pub`), /a PEM block is PUBLIC KEY, not ATTRIBUTE CERTIFICATE or CERTIFICATE/],
    ['a certificate cut off', tcgCert(`${PC}Intel_pc2.cer`).subarray(0, 400), /runs \d+ bytes past its end/],
    ['a certificate with bytes after it', Buffer.concat([tcgCert(`${PC}Intel_pc2.cer`), Buffer.from([0])]), /1 bytes follow the certificate/],
  ];

  it.each(refusals)('%s', (_what, bytes, reason) => {
    expect(() => parsePlatformCertificate(bytes)).toThrow(expect.objectContaining({ code: 'platform-cert-malformed', message: expect.stringMatching(reason) }));
  });
});

describe('every platform certificate of the set, loaded by a HIRS test or not', () => {
  const files = Object.keys(EXPECTED).filter((f) => EXPECTED[f]!.group.startsWith('pc'));
  /** Those without a TCG credential type, and Intel_nuc1.cer (its components out of the v1 layout). */
  const REFUSED = [
    `${PC}Intel_pc1.cer`,
    `${PC}Intel_nuc1.cer`,
    ...['-Att.pem', '.pem'].map((s) => `certificates/fakeIntel_S2600KP_F00F00F00F00${s}`),
    'certificates/fakeSGI_J2_F00F00F0.pem',
  ];

  it.each(files)('%s parses, or is refused with platform-cert-malformed', (file) => {
    if (REFUSED.includes(file)) expect(() => pc(file)).toThrow(expect.objectContaining({ code: 'platform-cert-malformed' }));
    else expect(pc(file).credentialType).toMatch(/^(TCPA|TCG) Trusted Platform Endorsement$/);
  });
});

describe('base and delta platform certificates', () => {
  const base = pc(`${PC}plat_base_cert1.pem`);
  const delta = pc(`${PC}plat_delta_cert1.pem`);

  it('tells them apart by tcgCredentialType (HIRS: platformChainType Base, Delta)', () => {
    expect([base.kind, base.credentialTypeOid]).toEqual(['base', '2.23.133.8.2']);
    expect([delta.kind, delta.credentialTypeOid]).toEqual(['delta', '2.23.133.8.5']);
    expect(base.configuration?.version).toBe(2);
  });

  it("a delta's holder is its base certificate, by issuer and serial", () => {
    expect(delta.cert.holder.serial).toBe(base.cert.serial);
    expect(sameName(delta.cert.holder.issuer, base.cert.issuer)).toBe(true);
  });

  it('reads what the delta changed: each component and property with its status', () => {
    expect(delta.configuration!.components.map((c) => [c.model, c.status])).toEqual([
      ['WR06X7871FTL', 'removed'],
      ['XT98287LL', 'added'],
      ['LMBT3904DW1T1G', 'modified'],
    ]);
    expect(delta.configuration!.properties).toEqual([
      { name: 'TSC Enabled', value: 'true', status: 'added' },
      { name: 'AMT', value: 'false', status: 'modified' },
    ]);
  });

  it('a TCG 1.2 certificate has no tcgCredentialType: a base one', () => {
    expect([pc(`${PC}Intel_pc2.cer`).kind, pc(`${PC}Intel_pc2.cer`).credentialTypeOid]).toEqual(['base', null]);
  });
});

describe('chassis and baseboard serials', () => {
  it('TCG 1.2: the combined "chassis,baseboard" field, the baseboard being the platform serial (HIRS getChassisSerialNumber, getPlatformSerial)', () => {
    const p = pc(`${PC}Intel_pc4.pem`).platform;
    expect([p.chassisSerial, p.baseboardSerial, p.serial]).toEqual(['G6YK42300C87', 'GETY421001GV', 'GETY421001GV']);
  });

  it('v2: the serials of the components of class chassis (TCG Containers) and baseboard (TCG Motherboard)', () => {
    const p = pc(`${PC}pciids_plat_cert_2-0.pem`);
    expect(p.configuration!.components.slice(0, 2).map((c) => [c.class?.value, c.class?.category, c.class?.role])).toEqual([
      ['00020001', 'Containers', 'chassis'],
      ['00030003', 'IC Boards', 'baseboard'],
    ]);
    // The chassis component's serial is SMBIOS's placeholder; the baseboard component has none.
    expect([p.platform.chassisSerial, p.platform.baseboardSerial]).toEqual(['To Be Filled By O.E.M.', null]);
  });
});

describe("HIRS's signature and chain checks", () => {
  const ca = (path: string): CaCertificate => {
    const bytes = tcgCert(path);
    return { cert: parseX509(bytes[0] === 0x30 ? new Uint8Array(bytes) : pemCertificates(bytes)[0]!), source: path };
  };
  const INTEL_CHAIN = `${PC}intel_chain/root/`;

  it('plat_cert3.pem validates under rootca.crt and intermediate1.crt, expired as they are (validateIntelPlatformCredentials: PASS)', () => {
    const r = verifyChain(pc(`${PC}plat_cert3.pem`).cert, [ca(`${INTEL_CHAIN}rootca.crt`), ca(`${INTEL_CHAIN}intermediate1.crt`)]);
    expect(r.verified).toBe(true);
    expect(r.path.map((c) => c.source)).toEqual([`${INTEL_CHAIN}intermediate1.crt`, `${INTEL_CHAIN}rootca.crt`]);
  });

  it('and fails with an empty trust store (verifyPlatformCredentialWithBadKeyStore: FAIL)', () => {
    const r = verifyChain(pc(`${PC}plat_cert3.pem`).cert, []);
    expect(r.verified ? null : chainFailureText(r.failure, PLATFORM_CERTIFICATE)).toBe(
      'no CA certificate is named C=US, O=Intel, CN=Intel Intermediate CA, ST=Some-State, the issuer of the platform certificate',
    );
  });

  it('plat_cert1.pem is signed by the key in ca.pub, and not by another (signatureMatchesPublicKey)', () => {
    const p = pc(`${PC}plat_cert1.pem`);
    expect(verify('sha256', p.cert.tbs, createPublicKey(tcgCert(`${PC}ca.pub`)), p.cert.signature)).toBe(true);
    const other = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey;
    expect(verify('sha256', p.cert.tbs, other, p.cert.signature)).toBe(false);
  });

  it('basic_plat_cert.pem and its siblings are signed by the CA embedded in PlatformCredentialTest (testIsIssuer)', () => {
    const embedded = EXPECTED[`${PC2}basic_plat_cert.pem`] as unknown as { issuer_ca_certificate_base64: string };
    const issuer: CaCertificate = { cert: parseX509(new Uint8Array(Buffer.from(embedded.issuer_ca_certificate_base64, 'base64'))), source: 'embedded' };
    for (const f of ['basic', 'small', 'medium', 'large']) expect(verifyChain(pc(`${PC2}${f}_plat_cert.pem`).cert, [issuer]).verified, f).toBe(true);
  });

  it("Intel_pc3.cer's issuer is IntelSigningKey_20April2017.pem's subject, not intermediate1.crt's (testPlatformDnEquals, testPlatformDnNotEquals)", () => {
    const p = pc(`${PC}Intel_pc3.cer`);
    expect(sameName(p.cert.issuer, ca('certificates/IntelSigningKey_20April2017.pem').cert.subject)).toBe(true);
    expect(sameName(p.cert.issuer, ca(`${INTEL_CHAIN}intermediate1.crt`).cert.subject)).toBe(false);
    // Its key verifies the signature, as OpenSSL finds; but it is no CA, so fleet's chain stops there.
    expect(checkSignature(p.cert, ca('certificates/IntelSigningKey_20April2017.pem').cert)).toBe('verifies');
    const r = verifyChain(p.cert, [ca('certificates/IntelSigningKey_20April2017.pem')]);
    expect(r.verified ? null : r.failure.reason).toBe('not-a-ca');
  });
});

describe.each(HIRS_PLATFORM_FILES.filter((f) => !REFUSED_BY_HIRS.includes(f)))('%s among all the CA certificates', (file) => {
  const CAS = Object.keys(EXPECTED).filter((f) => EXPECTED[f]!.group.startsWith('ca'));
  const pool = CAS.map((path): CaCertificate => {
    const bytes = tcgCert(path);
    return { cert: parseX509(bytes[0] === 0x30 ? new Uint8Array(bytes) : pemCertificates(bytes)[0]!), source: path };
  });
  const r = verifyChain(pc(file).cert, pool);
  const signers = (path: string) => EXPECTED[path]!.openssl.signature_verifies_with_public_key_of ?? [];

  it("verifies only through CAs OpenSSL finds a signer: each step one of OpenSSL's signers, and a CA", () => {
    const steps = [file, ...r.path.map((c) => c.source)];
    for (let i = 1; i < steps.length; i++) expect(signers(steps[i - 1]!)).toContain(steps[i]);
    if (r.verified) expect(file).toBe(`${PC}plat_cert3.pem`);
    else expect(['no-issuer', 'signature-fails', 'not-a-ca']).toContain(r.failure.reason);
  });
});

describe('the checks fleet attest approve can make of a platform certificate', () => {
  const nuc2 = parseEkCertificate(tcgCert('certificates/nuc-2/tpmcert.pem')).cert;
  const intelPc2 = pc(`${PC}Intel_pc2.pem`);
  const byCheck = (checks: ReturnType<typeof platformChecks>) => Object.fromEntries(checks.map((c) => [c.check, c.passed ? 'passed' : c.reason]));

  it("Intel_pc2.pem with the nuc-2 EK: any of its serials matches the machine's (validatePlatformCredentialAttributes: PASS)", () => {
    for (const [serial, matched] of [
      ['GETY421001GV', 'platform'],
      ['G6YK42300C87', 'chassis'],
    ] as const) {
      const serialCheck = platformChecks(intelPc2, nuc2, serial, null).find((c) => c.check === 'serial')!;
      expect(serialCheck).toMatchObject({ passed: true, matched });
    }
  });

  it('and none matches "Not Specified" or other serials (FAIL "Platform serial did not match device info")', () => {
    for (const serial of ['Not Specified', 'zzz', 'aaa', 'bbb', ''])
      expect(byCheck(platformChecks(intelPc2, nuc2, serial, null)).serial).toBe('serial-differs');
  });

  it('its holder names the nuc-2 EK by serial, but by the issuer "CN=STMicro": fleet, unlike HIRS, fails it', () => {
    expect(intelPc2.cert.holder.serial).toBe(nuc2.serial);
    const holder = platformChecks(intelPc2, nuc2, 'GETY421001GV', null)[0]!;
    expect(holder).toMatchObject({ check: 'holder', passed: false, reason: 'holder-issuer-differs' });
    expect(holder.message).toBe(
      "its holder's issuer is CN=STMicro, the EK certificate's issuer is C=CH, O=STMicroelectronics NV, CN=STM TPM EK Intermediate CA 02",
    );
  });

  it('another EK certificate is not its holder', () => {
    const nuc1 = parseEkCertificate(tcgCert('certificates/nuc-1/tpmcert.pem')).cert;
    expect(byCheck(platformChecks(intelPc2, nuc1, 'GETY421001GV', null)).holder).toBe('holder-serial-differs');
  });

  it('paccor_platform_cert.crt names no serial but "Not Specified" ones: no serial matches (testValPCAttributesV2p0...: FAIL)', () => {
    expect(byCheck(platformChecks(pc(`${PC2}paccor_platform_cert.crt`), nuc2, '1234', null)).serial).toBe('no-serial');
  });

  it('a delta certificate is no evidence of the machine: its holder is its base certificate', () => {
    expect(byCheck(platformChecks(pc(`${PC}plat_delta_cert1.pem`), nuc2, 'BQKP99940643', null)).holder).toBe('delta-certificate');
  });

  it('the chain: not checked without CA certificates, its failure reason, or the root', () => {
    const p = pc(`${PC}plat_cert3.pem`);
    expect(byCheck(platformChecks(p, nuc2, 'x', null)).chain).toBe('chain-not-checked');
    expect(byCheck(platformChecks(p, nuc2, 'x', verifyChain(p.cert, []))).chain).toBe('no-issuer');
  });
});

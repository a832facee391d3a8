import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ekHash } from '../../shared/ek/hash.js';
import { type EkCertificate, parseEkCertificate } from '../../shared/ek-cert/ek-certificate.js';
import { nameText } from '../../shared/ek-cert/names.js';
import { unwrapStored } from '../../shared/ek-cert/stored.js';
import { ekTemplateRsa } from '../../shared/tpm/templates.js';
import { type Asserted, EXPECTED, HIRS_EK_FILES, tcgCert } from './tcg-certs.js';

/** HIRS's enum constant as fleet spells it: INJECTED → injected, TPM_MANUFACTURER → tpm-manufacturer. */
const fleetEnum = (hirs: unknown): string => String(hirs).toLowerCase().replaceAll('_', '-');

/** What fleet read for each field EXPECTED.json transcribes from HIRS's tests, in HIRS's terms. */
const READ: Record<string, (ek: EkCertificate, file: Buffer, a: Asserted) => unknown> = {
  tpm_manufacturer: (ek) => ek.tpm.manufacturer,
  tpm_model: (ek) => ek.tpm.model,
  tpm_version: (ek) => ek.tpm.version,
  'tpm_spec.family': (ek) => ek.spec?.family,
  'tpm_spec.level': (ek) => ek.spec?.level,
  'tpm_spec.revision': (ek) => ek.spec?.revision,
  'tpm_security_assertions.version': (ek) => ek.assertions?.version,
  'tpm_security_assertions.field_upgradeable': (ek) => ek.assertions?.fieldUpgradeable,
  'tpm_security_assertions.ek_generation_type': (ek) => ek.assertions?.ekGenerationType,
  'tpm_security_assertions.ek_generation_location': (ek) => ek.assertions?.ekGenerationLocation,
  'tpm_security_assertions.ek_certificate_generation_location': (ek) => ek.assertions?.ekCertificateGenerationLocation,
  serial_number: (ek) => BigInt(`0x${ek.cert.serial}`).toString(),
  issuer: (ek) => nameText(ek.cert.issuer),
  subject: (ek) => nameText(ek.cert.subject),
  // "the first 908 bytes of the file": the DER is exactly those.
  raw_bytes: (ek, file, a) => Buffer.from(ek.cert.der).equals(file.subarray(0, Number(/first (\d+) bytes/.exec(String(a.value))![1]))),
};

/**
 * The value HIRS's assertion holds fleet to. One reading differs, by the profile: a
 * TPMSecurityAssertions without its version field is DEFAULT v1, which is INTEGER 0; HIRS puts 1
 * in its place. Where the DER leaves the version out (EXPECTED.json's observed reading says
 * "absent"), fleet reports 0, as it does for the STM certificates that encode v1.
 */
function fleetValue(file: string, a: Asserted): unknown {
  const observed = EXPECTED[file]!.observed?.['tpm_security_assertions_2.23.133.2.18'] as { version?: unknown } | undefined;
  if (a.field === 'tpm_security_assertions.version' && observed?.version === 'absent') return 0;
  if (a.field.endsWith('_type') || a.field.endsWith('_location')) return fleetEnum(a.value);
  if (a.field === 'raw_bytes') return true;
  return a.value;
}

describe.each(HIRS_EK_FILES)('the EK certificate %s', (file) => {
  const bytes = tcgCert(file);
  const ek = parseEkCertificate(bytes);

  it('reads every value HIRS asserts of it', () => {
    for (const a of EXPECTED[file]!.asserted) {
      expect(READ[a.field], `a reader for ${a.field}`).toBeDefined();
      expect(READ[a.field]!(ek, bytes, a), `${a.field} (${a.source})`).toEqual(fleetValue(file, a));
    }
  });

  it('certifies an RSA-2048 key whose EK hash is that of a TCG-template EK with its modulus', () => {
    // OpenSSL loads no key stored as RSAES-OAEP (these certificates' way), so the modulus is
    // read with asn1parse and put in the TCG default template, as the TPM would present its EK.
    const dir = mkdtempSync(join(tmpdir(), 'ek-cert-'));
    try {
      writeFileSync(join(dir, 'ek.der'), ek.cert.der);
      const asn1 = (extra: string[]) => execFileSync('openssl', ['asn1parse', '-inform', 'DER', '-in', join(dir, 'ek.der'), ...extra], { encoding: 'utf8' });
      const lines = asn1([]).split('\n');
      const keyAlg = lines.findIndex((l) => /OBJECT\s+:(rsaesOaep|rsaEncryption)/.test(l));
      const bitString = lines.slice(keyAlg).find((l) => l.includes('BIT STRING'))!;
      const ints = [...asn1(['-strparse', bitString.split(':')[0]!.trim()]).matchAll(/INTEGER\s+:([0-9A-F]+)/g)].map((m) => m[1]!);
      expect(ints[1]).toBe('010001');
      expect(ek.key).toBe('RSA-2048');
      expect(ek.ekHash).toBe(ekHash({ ...ekTemplateRsa(), unique: Buffer.from(ints[0]!, 'hex') }));
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});

describe('EK certificates as TPM NV holds them', () => {
  const plain = tcgCert('certificates/nuc-1/ek_cert_7_byte_header_removed.cer');

  it('takes the DER after the 7-byte TCG header: the header-removed file, and the certificate of nuc-2/tpmcert.pem', () => {
    const stored = unwrapStored(tcgCert('certificates/nuc-1/ek_cert_untouched.cer'));
    expect(stored.form).toEqual({ encoding: 'der', tcgHeader: true, trailingBytes: 0 });
    expect(Buffer.from(stored.der).equals(plain)).toBe(true);
    expect(Buffer.from(parseEkCertificate(tcgCert('certificates/nuc-2/tpmcert.pem')).cert.der).equals(plain)).toBe(true);
  });

  it('passes over the padding after the DER, whatever its byte (Infineon zeros, Nuvoton 0x11)', () => {
    expect(unwrapStored(tcgCert('certificates/ek_cert_with_security_assertions.cer')).form).toEqual({ encoding: 'der', tcgHeader: true, trailingBytes: 300 });
    expect(unwrapStored(tcgCert('certificates/ek_cert_with_padded_bytes.cer')).form).toEqual({ encoding: 'der', tcgHeader: false, trailingBytes: 192 });
    const ffPadded = Buffer.concat([plain, Buffer.alloc(64, 0xff)]);
    expect(parseEkCertificate(ffPadded).ekHash).toBe(parseEkCertificate(plain).ekHash);
  });

  it('tells two TPMs apart, as HIRS asserts (ab21ccf2, nuc-1 and nuc-2 differ)', () => {
    const hashes = ['certificates/ab21ccf2-tpmcert.pem', 'certificates/nuc-1/tpmcert.pem', 'certificates/nuc-2/tpmcert.pem'].map(
      (f) => parseEkCertificate(tcgCert(f)).ekHash,
    );
    expect(new Set(hashes).size).toBe(3);
  });

  it('reads the Infineon certificate’s other assertions: Common Criteria 3.1 EAL4+ and ISO 9000', () => {
    // The DER, as openssl asn1parse shows it: [3] { "3.1", ENUMERATED 4, ENUMERATED 0, TRUE }, then an untagged TRUE.
    const a = parseEkCertificate(tcgCert('certificates/ek_cert_with_security_assertions.cer')).assertions!;
    expect(a.commonCriteria).toEqual({ version: '3.1', assuranceLevel: 4, evaluationStatus: 'designed-to-meet', plus: true });
    expect(a.fips).toBeNull();
    expect(a.iso9000Certified).toBe(true);
  });
});

describe('what HIRS refuses, fleet refuses with the reason', () => {
  const padded = tcgCert('certificates/ek_cert_with_padded_bytes.cer');
  const refusals: Array<[string, Uint8Array, RegExp]> = [];
  for (const e of EXPECTED['certificates/ek_cert_with_padded_bytes.cer']!.expect) {
    const n = /first (\d+) bytes/.exec(e.expect)?.[1];
    if (n) refusals.push([`its first ${n} bytes (${e.source})`, padded.subarray(0, Number(n)), /cut off|runs \d+ bytes past/]);
  }
  refusals.push(
    [
      'a platform certificate HIRS rejects (Intel_pc1.cer): an attribute certificate',
      tcgCert('validation/platform_credentials/Intel_pc1.cer'),
      /not an X\.509 certificate/,
    ],
    ['nothing', new Uint8Array(0), /does not start with a DER SEQUENCE/],
    ['a TCG header over a partial certificate', Buffer.from('10010104641002', 'hex'), /partial certificate/],
    [
      'a TCG header whose size is not the certificate’s',
      Buffer.concat([Buffer.from('10010004651002', 'hex'), tcgCert('certificates/nuc-1/ek_cert_7_byte_header_removed.cer')]),
      /TCG header gives/,
    ],
  );

  it('finds HIRS’s three truncations in EXPECTED.json', () => expect(refusals.filter(([what]) => what.startsWith('its first'))).toHaveLength(3));

  it.each(refusals)('%s', (_what, bytes, reason) => {
    expect(() => parseEkCertificate(bytes)).toThrow(expect.objectContaining({ code: 'ek-cert-malformed', message: expect.stringMatching(reason) }));
  });
});

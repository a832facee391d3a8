import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ekHashOfCertificate } from '../../shared/ek-cert/ek-certificate.js';
import { parseX509 } from '../../shared/ek-cert/certificate.js';
import { pemCertificates } from '../../shared/ek-cert/pem.js';
import type { CaCertificate } from '../../shared/ek-cert/chain.js';
import { nameText } from '../../shared/ek-cert/names.js';
import { unwrapStored } from '../../shared/ek-cert/stored.js';
import { parsePlatformCertificate } from '../../shared/platform-cert/platform-certificate.js';
import { APPROVE_LINES as L } from '../../verifier/approve-lines.js';
import { type ApprovalEvidence, approvalLines } from '../../verifier/approve.js';
import type { Claim } from '../../verifier/state/claim.js';
import { matching } from '../line-pattern.js';
import { issuePlatformCertificate, makeTestCa, type PlatformFields, type TestCa } from '../platform-cert-issuer.js';
import { tcgCert } from '../evidence/tcg-certs.js';

const AT = new Date('2026-12-02T00:00:00Z');
const SERIAL = 'SN1';

/** A key's self-signed certificate, valid from now, as openssl makes it: one of the claim's EK certificates, and its own root. */
function selfSigned(key: string[], subject: string): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'approve-pc-'));
  try {
    const args = ['req', '-x509', '-newkey', ...key, '-nodes', '-keyout', join(dir, 'k.pem')];
    execFileSync('openssl', [...args, '-out', join(dir, 'c.der'), '-outform', 'DER', '-days', '1', '-subj', subject], { stdio: 'ignore' });
    return readFileSync(join(dir, 'c.der'));
  } finally {
    rmSync(dir, { recursive: true });
  }
}

/** The claim's two EK certificates. */
const RSA_DER = selfSigned(['rsa:2048'], '/CN=RSA EK/O=Maker');
const ECC_DER = selfSigned(['ec', '-pkeyopt', 'ec_paramgen_curve:P-256'], '/CN=ECC EK/O=Maker');
/** HIRS's nuc-2 EK certificate, which STMicroelectronics' chain verifies, expired since 2024. */
const NUC2_DER = Buffer.from(unwrapStored(tcgCert('certificates/nuc-2/tpmcert.pem')).der);
const HASHES = { rsa2048: ekHashOfCertificate(RSA_DER), eccp256: ekHashOfCertificate(ECC_DER) };
/** Another TPM's EK certificate. */
const OTHER_DER = Buffer.from(unwrapStored(tcgCert('certificates/ab21ccf2-tpmcert.pem')).der);

const claim: Claim = {
  serial: SERIAL,
  // Made now: the certificates this test issues are valid from now on.
  at: new Date().toISOString(),
  mac: '52:54:00:12:34:56',
  peer: '10.0.1.11',
  switchPort: 'Port 5',
  eks: [
    { kind: 'rsa2048', hash: HASHES.rsa2048, certificate: { der: RSA_DER.toString('base64') } },
    { kind: 'eccp256', hash: HASHES.eccp256, certificate: { der: ECC_DER.toString('base64') } },
  ],
};

/** --ek-roots: the two self-signed EK certificates, and STMicroelectronics' chain over nuc-2's. */
const EK_ROOTS: CaCertificate[] = [
  { cert: parseX509(RSA_DER), source: 'rsa-ek.pem' },
  { cert: parseX509(ECC_DER), source: 'ecc-ek.pem' },
  ...['gstpmroot.crt', 'stmtpmekint02.crt', 'stmtpmekroot.crt'].map((f) => ({
    cert: parseX509(pemOrDer(tcgCert(`certificates/stMicroCaCerts/${f}`))),
    source: f,
  })),
];

function pemOrDer(bytes: Uint8Array): Uint8Array {
  return bytes[0] === 0x30 ? new Uint8Array(bytes) : pemCertificates(bytes)[0]!;
}

const CA = makeTestCa();
const rootsOf = (ca: TestCa): CaCertificate[] => [{ cert: parseX509(ca.der), source: 'platform-ca.pem' }];
const BINDINGS = [L.binding('approved_ek_rsa2048', HASHES.rsa2048), L.binding('approved_ek_eccp256', HASHES.eccp256)];

/** The lines for `claim` with a platform certificate `CA` issued for `ek`, checked up to `roots`. */
function linesWith(ek: Uint8Array, fields: Partial<PlatformFields> = {}, roots: CaCertificate[] | null = rootsOf(CA), of: Claim = claim): string[] {
  const certificate = parsePlatformCertificate(issuePlatformCertificate(CA, ek, { platformSerial: SERIAL, ...fields }));
  const evidence: ApprovalEvidence = { roots: EK_ROOTS, platform: { certificate, roots }, at: AT };
  return approvalLines(of, evidence);
}

/** The platform certificate's lines: those between the EKs' lines and "This approves nothing". */
const platformPart = (lines: string[]) => lines.filter((l) => l.startsWith('  platform certificate: '));
const closing = (lines: string[]) => lines.slice(lines.indexOf(L.approvesNothing()));
/** The EK certificate's issuer and serial, as the lines name them. */
const named = (der: Uint8Array) => {
  const c = parseX509(der);
  return { issuer: nameText(c.issuer), serial: c.serial };
};

describe("fleet attest approve's lines with a platform certificate", () => {
  it('say what a verified certificate ties, the serial to the EK certificate its holder names, and still approve nothing', () => {
    const rsa = named(RSA_DER);
    const lines = linesWith(RSA_DER);
    expect(platformPart(lines)).toEqual([L.platformTie('platform', SERIAL, 'rsa2048', HASHES.rsa2048, rsa.issuer, rsa.serial, 'platform-ca.pem')]);
    expect(lines[lines.indexOf(L.approvesNothing()) - 1]).toBe(platformPart(lines)[0]);
    expect(closing(lines)).toEqual([L.approvesNothing(), L.chainIsNoApproval(), L.platformIsNoApproval(), L.compare(), L.addLines(), ...BINDINGS]);
  });

  it("find the EK certificate its holder names among the claim's, and the serial it matched", () => {
    const ecc = named(ECC_DER);
    expect(platformPart(linesWith(ECC_DER, { platformSerial: 'Not Specified', chassisSerial: SERIAL }))).toEqual([
      L.platformTie('chassis', SERIAL, 'eccp256', HASHES.eccp256, ecc.issuer, ecc.serial, 'platform-ca.pem'),
    ]);
  });

  it('say why, when the certificate names another serial', () => {
    const lines = linesWith(RSA_DER, { platformSerial: 'SN2', baseboardSerial: 'BB-7' });
    expect(platformPart(lines)).toEqual([L.platformCheckFailed('serial', "the machine's serial SN1 is none of its serials (platform SN2, baseboard BB-7)")]);
    expect(closing(lines)).toEqual([L.approvesNothing(), L.chainIsNoApproval(), L.compare(), L.addLines(), ...BINDINGS]);
  });

  it("say why, when its holder is none of the claim's EK certificates", () => {
    const other = named(OTHER_DER);
    const lines = linesWith(OTHER_DER);
    expect(platformPart(lines)).toEqual([
      L.platformCheckFailed('holder', `its holder is the EK certificate ${other.issuer}, serial ${other.serial}, which is none of those the TPM presented`),
    ]);
    expect(closing(lines)).not.toContain(L.platformIsNoApproval());
    // A claim whose EK came without a certificate presents none it could hold.
    const bare: Claim = { ...claim, eks: [{ kind: 'rsa2048', hash: HASHES.rsa2048, certificate: null }] };
    expect(platformPart(linesWith(RSA_DER, {}, rootsOf(CA), bare))).toEqual([
      expect.stringMatching(matching(L.platformCheckFailed, 'holder', /.*none of those the TPM presented/)),
    ]);
  });

  it('say why, when its chain does not verify to the roots given, and that it was not checked without them', () => {
    const impostor = makeTestCa();
    expect(platformPart(linesWith(RSA_DER, {}, rootsOf(impostor)))).toEqual([
      L.platformCheckFailed(
        'chain',
        'platform-ca.pem is named CN=Test Platform CA, the issuer of the platform certificate, but its key does not verify the signature',
      ),
    ]);
    expect(platformPart(linesWith(RSA_DER, {}, rootsOf(makeTestCa('Another CA'))))).toEqual([
      L.platformCheckFailed('chain', 'no CA certificate is named CN=Test Platform CA, the issuer of the platform certificate'),
    ]);
    const unchecked = linesWith(RSA_DER, {}, null);
    expect(platformPart(unchecked)).toEqual([L.platformChainNotChecked()]);
    expect(closing(unchecked)).not.toContain(L.platformIsNoApproval());
  });

  it("refuse an EK certificate that had expired when the claim was made, though STMicroelectronics' chain verifies it", () => {
    const nuc2: Claim = { ...claim, eks: [{ kind: 'rsa2048', hash: ekHashOfCertificate(NUC2_DER), certificate: { der: NUC2_DER.toString('base64') } }] };
    const lines = linesWith(NUC2_DER, {}, rootsOf(CA), nuc2);
    expect(lines).toContain('    chain: verified up to the root gstpmroot.crt');
    expect(platformPart(lines)).toEqual([
      expect.stringMatching(
        /^ {2}platform certificate: validity not verified: the rsa2048 EK certificate was expired when the claim was made, .* \(valid 2014-02-23 to 2024-02-23\)$/,
      ),
    ]);
    expect(closing(lines)).not.toContain(L.platformIsNoApproval());
  });

  it('give a line for each check that fails', () => {
    expect(platformPart(linesWith(OTHER_DER, { platformSerial: 'SN2' }, null))).toEqual([
      expect.stringMatching(matching(L.platformCheckFailed, 'holder', /.+/)),
      expect.stringMatching(matching(L.platformCheckFailed, 'serial', /.+/)),
      L.platformChainNotChecked(),
    ]);
  });

  it('recognise a delta certificate, which ties no EK certificate', () => {
    const delta = parsePlatformCertificate(tcgCert('validation/platform_credentials/plat_delta_cert1.pem'));
    const lines = approvalLines(claim, { roots: null, platform: { certificate: delta, roots: null }, at: AT });
    expect(platformPart(lines)[0]).toMatch(
      matching(
        L.platformCheckFailed,
        'holder',
        /a delta platform certificate's holder \(.+, serial [0-9A-F]+\) is its base platform certificate, not an EK certificate/,
      ),
    );
    expect(closing(lines)).not.toContain(L.platformIsNoApproval());
  });

  it('escape what the certificate says', () => {
    const lines = linesWith(RSA_DER, { platformSerial: 'SN2\u001b]0;owned\u0007\u202e' });
    for (const l of lines) expect(l).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(platformPart(lines)).toEqual([
      L.platformCheckFailed('serial', "the machine's serial SN1 is none of its serials (platform SN2\\x1b]0;owned\\x07\\u202e)"),
    ]);
  });
});

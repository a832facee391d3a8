import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseX509 } from '../../shared/ek-cert/certificate.js';
import type { CaCertificate } from '../../shared/ek-cert/chain.js';
import { ekHashOfCertificate } from '../../shared/ek-cert/ek-certificate.js';
import { pemCertificates } from '../../shared/ek-cert/pem.js';
import { unwrapStored } from '../../shared/ek-cert/stored.js';
import { printable } from '../../shared/text/terminal.js';
import { APPROVE_LINES as L } from '../../verifier/approve-lines.js';
import { approvalLines, rivalClaimsLine } from '../../verifier/approve.js';
import type { Claim, ClaimCertificate } from '../../verifier/state/claim.js';
import { matching } from '../line-pattern.js';
import { tcgCert } from '../evidence/tcg-certs.js';

const AT = new Date('2026-12-02T00:00:00Z');
/** nuc-2's STM EK certificate as its TPM's NV index held it: the TCG header, then the DER. */
const NUC2 = 'certificates/nuc-1/ek_cert_untouched.cer';
const NUC2_HASH = ekHashOfCertificate(tcgCert(NUC2));

const claimWith = (certificate: ClaimCertificate | null, hash = 'a'.repeat(64)): Claim => ({
  serial: 'SN1',
  at: '2026-12-01T00:00:00Z',
  mac: '52:54:00:12:34:56',
  peer: '10.0.1.11',
  switchPort: 'Port 5',
  eks: [{ kind: 'rsa2048', hash, certificate }],
});
const derOf = (file: string): ClaimCertificate => ({ der: Buffer.from(unwrapStored(tcgCert(file)).der).toString('base64') });

/** A CA certificate of testdata/tcg-certs, named by its file as --ek-roots names it. */
function ca(path: string): CaCertificate {
  const bytes = tcgCert(path);
  const der = bytes[0] === 0x30 ? new Uint8Array(bytes) : pemCertificates(bytes)[0]!;
  return { cert: parseX509(der), source: path.split('/').at(-1)! };
}

/** The lines between the EK's line and "This approves nothing". */
const ekLines = (lines: string[]) => lines.slice(1, lines.indexOf(L.approvesNothing()));
/** The closing lines, from "This approves nothing". */
const closing = (lines: string[]) => lines.slice(lines.indexOf(L.approvesNothing()));

describe("fleet attest approve's lines", () => {
  it('show what the claimant sent with its control characters and direction overrides escaped', () => {
    const lines = approvalLines(
      {
        ...claimWith({ der: null, subject: 'CN=EK\u202eevil', issuer: 'CN=CA\r\nfake line' }),
        serial: 'SN1\u001b]0;owned\u0007',
        switchPort: 'g1\u001b[2J\u001b[H',
      },
      { roots: null, at: AT },
    );
    for (const l of lines) expect(l).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(lines[0]).toBe('claim: serial SN1\\x1b]0;owned\\x07, MAC 52:54:00:12:34:56, switch port g1\\x1b[2J\\x1b[H, from 10.0.1.11, at 2026-12-01T00:00:00Z');
    expect(lines[1]).toBe(printable(L.oldCertificate('rsa2048', 'a'.repeat(64), 'CN=EK\u202eevil', 'CN=CA\r\nfake line')));
    expect(lines[1]).toContain('subject "CN=EK\\u202eevil", issuer "CN=CA\\x0d\\x0afake line"');
    expect(lines.at(-1)).toBe(`approved_ek_rsa2048: ${'a'.repeat(64)}`);
  });

  it("escape the names in a certificate's own DER", () => {
    const dir = mkdtempSync(join(tmpdir(), 'approve-'));
    try {
      const subj = '/CN=EK\u001b[2J\u202eevil/O=Maker';
      execFileSync(
        'openssl',
        ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', join(dir, 'k.pem')].concat([
          '-out',
          join(dir, 'c.der'),
          '-outform',
          'DER',
          '-days',
          '1',
          '-utf8',
          '-subj',
          subj,
        ]),
        { stdio: 'ignore' },
      );
      const der = readFileSync(join(dir, 'c.der'));
      const lines = approvalLines(claimWith({ der: der.toString('base64') }, ekHashOfCertificate(der)), { roots: null, at: AT });
      for (const l of lines) expect(l).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/);
      expect(lines[2]).toContain('subject "CN=EK\\x1b[2J\\u202eevil, O=Maker"');
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it('name the TPM the certificate names, its issuer, dates and spec, and say its chain was not checked without --ek-roots', () => {
    const lines = approvalLines(claimWith(derOf(NUC2), NUC2_HASH), { roots: null, at: AT });
    expect(ekLines(lines)).toEqual([
      L.certificate('rsa2048', NUC2_HASH, 'id:53544D20 (STM)', 'ST33ZP24PVSP', 'id:0D0C'),
      L.certificateNames(
        'C=CH, O=STMicroelectronics NV, CN=STM TPM EK Intermediate CA 02',
        '(empty)',
        '2014-02-23',
        '2024-02-23',
        'expired',
        '2026-12-02',
        'family 1.2, level 2, revision 116',
      ),
      L.chainNotChecked(),
    ]);
    expect(closing(lines)).toEqual([L.approvesNothing(), L.compare(), L.addLines(), L.binding('approved_ek_rsa2048', NUC2_HASH)]);
  });

  it('with --ek-roots, name the root and the intermediates that verified, and still approve nothing', () => {
    const STM_INT = 'C=CH, O=STMicroelectronics NV, CN=STM TPM EK Intermediate CA 02';
    const chains: Array<[string[], string[]]> = [
      // HIRS's SupplyChainCredentialValidatorTest: PASS.
      [
        ['certificates/fakeCA.pem', 'certificates/fakestmtpmekint02.pem'],
        [L.chainVerified('fakeCA.pem'), L.issuedBy('fakestmtpmekint02.pem', STM_INT), L.issuedBy('fakeCA.pem', 'CN=Fake Root CA')],
      ],
      // STMicroelectronics' own: its intermediate, its root, and GlobalSign's root over both.
      [
        ['gstpmroot.crt', 'stmtpmekint02.crt', 'stmtpmekroot.crt'].map((f) => `certificates/stMicroCaCerts/${f}`),
        [
          L.chainVerified('gstpmroot.crt'),
          L.issuedBy('stmtpmekint02.crt', STM_INT),
          L.issuedBy('stmtpmekroot.crt', 'C=CH, O=STMicroelectronics NV, CN=STM TPM EK Root CA'),
          L.issuedBy('gstpmroot.crt', 'OU=GlobalSign Trusted Computing Certificate Authority, O=GlobalSign, CN=GlobalSign Trusted Platform Module Root CA'),
        ],
      ],
    ];
    for (const [roots, chain] of chains) {
      const lines = approvalLines(claimWith(derOf(NUC2), NUC2_HASH), { roots: roots.map(ca), at: AT });
      expect(ekLines(lines).slice(2)).toEqual(chain);
      expect(closing(lines)).toEqual([L.approvesNothing(), L.chainIsNoApproval(), L.compare(), L.addLines(), L.binding('approved_ek_rsa2048', NUC2_HASH)]);
    }
  });

  it('with --ek-roots that do not hold its issuer, say why the chain does not verify', () => {
    const pool = [ca('validation/platform_credentials/intel_chain/root/intermediate1.crt')];
    const lines = approvalLines(claimWith(derOf(NUC2), NUC2_HASH), { roots: pool, at: AT });
    expect(ekLines(lines).slice(2)).toEqual([
      L.chainNotVerified('no CA certificate is named C=CH, O=STMicroelectronics NV, CN=STM TPM EK Intermediate CA 02, the issuer of the EK certificate'),
    ]);
    expect(closing(lines)).toEqual([L.approvesNothing(), L.compare(), L.addLines(), L.binding('approved_ek_rsa2048', NUC2_HASH)]);
  });

  it('with a root whose key does not verify, name the intermediate that did and why the root does not', () => {
    const pool = ['certificates/fakeRootCA.cer', 'certificates/fakestmtpmekint02.pem'].map(ca);
    const lines = approvalLines(claimWith(derOf(NUC2), NUC2_HASH), { roots: pool, at: AT });
    expect(ekLines(lines).slice(2)).toEqual([
      L.chainNotVerified('fakeRootCA.cer names itself as its issuer, but its own key does not verify its signature, so it is no root'),
      L.issuedBy('fakestmtpmekint02.pem', 'C=CH, O=STMicroelectronics NV, CN=STM TPM EK Intermediate CA 02'),
      L.issuedBy('fakeRootCA.cer', 'CN=Fake Root CA'),
    ]);
    expect(closing(lines)).not.toContain(L.chainIsNoApproval());
  });

  it('say so for an EK with no certificate, and for a kept DER that no longer reads', () => {
    expect(approvalLines(claimWith(null), { roots: null, at: AT })[1]).toBe(L.noCertificate('rsa2048', 'a'.repeat(64)));
    const cut = Buffer.from(unwrapStored(tcgCert(NUC2)).der.subarray(0, 300)).toString('base64');
    expect(approvalLines(claimWith({ der: cut }), { roots: null, at: AT })[1]).toMatch(
      matching(L.unreadableCertificate, 'rsa2048', 'a'.repeat(64), /.*(cut off|runs \d+ bytes past).*/),
    );
  });

  it('leave ordinary text, accents included, as it is', () => {
    expect(printable('Port 5 – Büro')).toBe('Port 5 – Büro');
  });

  it('say first when several TPMs claim the serial', () => {
    expect(rivalClaimsLine('SN1\u001b[2J', 3)).toBe(
      '3 different TPMs claim the serial SN1\\x1b[2J; at most one is that machine. Compare each claim below with your evidence, and add only the lines of the one that matches.',
    );
  });
});

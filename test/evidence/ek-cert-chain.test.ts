import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseX509 } from '../../shared/ek-cert/certificate.js';
import { type CaCertificate, type ChainResult, chainFailureText, validityAt, verifyChain } from '../../shared/ek-cert/chain.js';
import { parseEkCertificate } from '../../shared/ek-cert/ek-certificate.js';
import { pemCertificates } from '../../shared/ek-cert/pem.js';
import { EXPECTED, HIRS_EK_FILES, tcgCert } from './tcg-certs.js';

const STM_CHAIN = ['stMicroCaCerts/gstpmroot.crt', 'stMicroCaCerts/stmtpmekint02.crt', 'stMicroCaCerts/stmtpmekroot.crt'].map((f) => `certificates/${f}`);
const CA_FILES = [
  'certificates/fakeCA.pem',
  'certificates/fakestmtpmekint02.pem',
  'certificates/fakeRootCA.cer',
  ...STM_CHAIN,
  'validation/platform_credentials/intel_chain/root/intermediate1.crt',
];

/** A CA certificate of testdata/tcg-certs, named by its path there (PEM or DER, as the file is). */
function ca(path: string): CaCertificate {
  const bytes = tcgCert(path);
  const der = bytes[0] === 0x30 ? new Uint8Array(bytes) : pemCertificates(bytes)[0]!;
  return { cert: parseX509(der), source: path };
}

const ek = (path: string) => parseEkCertificate(tcgCert(path)).cert;
const sources = (r: ChainResult) => r.path.map((c) => c.source);
const failure = (r: ChainResult) => (r.verified ? null : r.failure.reason);
const message = (r: ChainResult) => (r.verified ? null : chainFailureText(r.failure));

describe("HIRS's chain checks", () => {
  it('nuc-2 validates under fakeCA.pem and fakestmtpmekint02.pem (SupplyChainCredentialValidatorTest: PASS)', () => {
    const r = verifyChain(ek('certificates/nuc-2/tpmcert.pem'), [ca('certificates/fakeCA.pem'), ca('certificates/fakestmtpmekint02.pem')]);
    expect(r.verified).toBe(true);
    expect(sources(r)).toEqual(['certificates/fakestmtpmekint02.pem', 'certificates/fakeCA.pem']);
  });

  it('fakeRootCA.cer issues fakestmtpmekint02.pem (CertificateTest isIssuer) but is no root: its own signature does not verify', () => {
    const r = verifyChain(ek('certificates/nuc-2/tpmcert.pem'), [ca('certificates/fakeRootCA.cer'), ca('certificates/fakestmtpmekint02.pem')]);
    expect(sources(r)).toEqual(['certificates/fakestmtpmekint02.pem', 'certificates/fakeRootCA.cer']);
    expect(failure(r)).toBe('self-signature-fails');
    expect(message(r)).toMatch(/^certificates\/fakeRootCA\.cer names itself as its issuer/);
  });

  it('with fakeCA.pem beside it, the chain finds the root that verifies', () => {
    const pool = ['certificates/fakeRootCA.cer', 'certificates/fakestmtpmekint02.pem', 'certificates/fakeCA.pem'].map(ca);
    expect(sources(verifyChain(ek('certificates/nuc-2/tpmcert.pem'), pool)).at(-1)).toBe('certificates/fakeCA.pem');
  });

  it("intermediate1.crt is not nuc-2's issuer (testEndorsementDnNotEquals)", () => {
    const r = verifyChain(ek('certificates/nuc-2/tpmcert.pem'), [ca('validation/platform_credentials/intel_chain/root/intermediate1.crt')]);
    expect(failure(r)).toBe('no-issuer');
    expect(message(r)).toBe('no CA certificate is named C=CH, O=STMicroelectronics NV, CN=STM TPM EK Intermediate CA 02, the issuer of the EK certificate');
  });
});

describe.each(HIRS_EK_FILES)('%s among all the CA certificates', (file) => {
  const r = verifyChain(ek(file), CA_FILES.map(ca));
  const signers = (path: string) => EXPECTED[path]!.openssl.signature_verifies_with_public_key_of ?? [];

  it("verifies exactly when OpenSSL finds its signer among them, each step one of OpenSSL's signers", () => {
    expect(r.verified).toBe(signers(file).some((s) => CA_FILES.includes(s)));
    const steps = [file, ...sources(r)];
    for (let i = 1; i < steps.length; i++) expect(signers(steps[i - 1]!)).toContain(steps[i]);
    if (!r.verified) expect(failure(r)).toBe('no-issuer');
  });
});

describe('the STMicro EKs under the real STM chain', () => {
  it('verify up to the GlobalSign TPM root, and report the EK certificate expired after 2024-02-23 without failing the chain', () => {
    const file = 'certificates/nuc-1/ek_cert_untouched.cer';
    const cert = ek(file);
    const r = verifyChain(cert, STM_CHAIN.map(ca));
    expect(sources(r)).toEqual([
      'certificates/stMicroCaCerts/stmtpmekint02.crt',
      'certificates/stMicroCaCerts/stmtpmekroot.crt',
      'certificates/stMicroCaCerts/gstpmroot.crt',
    ]);
    expect(r.verified).toBe(true);
    const x509 = (EXPECTED[file]!.openssl as { x509_after_stripping_7_byte_header_and_padding: { not_before: string; not_after: string } })
      .x509_after_stripping_7_byte_header_and_padding;
    expect(cert.notAfter.getTime()).toBe(Date.parse(x509.not_after));
    expect(validityAt(cert, new Date(Date.parse(x509.not_after) + 1000))).toBe('expired');
    expect(validityAt(cert, new Date(Date.parse(x509.not_before) - 1000))).toBe('not-yet-valid');
    expect(validityAt(cert, new Date(Date.parse(x509.not_before) + 1000))).toBe('valid');
  });
});

describe('chains openssl makes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ek-chain-'));
  afterAll(() => rmSync(dir, { recursive: true }));
  const sh = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  writeFileSync(
    join(dir, 'ext.cnf'),
    [
      '[ca]',
      'basicConstraints = critical, CA:TRUE',
      'keyUsage = critical, keyCertSign, cRLSign',
      '[noca]',
      'basicConstraints = critical, CA:FALSE',
      'keyUsage = critical, digitalSignature',
      '[ek]',
      'basicConstraints = critical, CA:FALSE',
      '',
    ].join('\n'),
  );
  const KEYS = {
    rsa: ['-newkey', 'rsa:2048'],
    p256: ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'],
    p384: ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384'],
  };
  let serial = 1;
  /** A certificate `name` for subject CN=`cn`, self-signed or signed by `issuer`'s key, with `digest` (and RSA-PSS when asked). */
  function make(
    name: string,
    o: { cn: string; key: keyof typeof KEYS; issuer?: string; digest: string; ext: 'ca' | 'noca' | 'ek'; pss?: boolean },
  ): CaCertificate {
    const signing = o.pss ? ['-sigopt', 'rsa_padding_mode:pss', '-sigopt', 'rsa_pss_saltlen:32'] : [];
    const common = ['-nodes', '-keyout', `${name}.key`, '-subj', `/CN=${o.cn}`, ...KEYS[o.key]];
    if (!o.issuer) {
      sh(['req', '-x509', ...common, '-days', '365', `-${o.digest}`, '-extensions', o.ext, '-config', 'ext.cnf', '-out', `${name}.pem`, ...signing]);
    } else {
      sh(['req', '-new', ...common, '-config', 'ext.cnf', '-out', `${name}.csr`]);
      sh(
        [
          'x509',
          '-req',
          '-in',
          `${name}.csr`,
          '-CA',
          `${o.issuer}.pem`,
          '-CAkey',
          `${o.issuer}.key`,
          '-set_serial',
          String(serial++),
          '-days',
          '365',
          `-${o.digest}`,
        ].concat(['-extfile', 'ext.cnf', '-extensions', o.ext, '-out', `${name}.pem`], signing),
      );
    }
    return { cert: parseX509(pemCertificates(readFileSync(join(dir, `${name}.pem`)))[0]!), source: `${name}.pem` };
  }

  const root = make('root', { cn: 'Test EK Root', key: 'rsa', digest: 'sha384', ext: 'ca' });
  const int = make('int', { cn: 'Test EK Intermediate', key: 'p384', issuer: 'root', digest: 'sha256', ext: 'ca' });
  const eccEk = make('ek-ecc', { cn: 'ecc ek', key: 'p256', issuer: 'int', digest: 'sha384', ext: 'ek' });
  const rsaEk = make('ek-rsa', { cn: 'rsa ek', key: 'rsa', issuer: 'int', digest: 'sha1', ext: 'ek' });
  const rsaSha256Ek = make('ek-rsa-256', { cn: 'rsa ek 256', key: 'rsa', issuer: 'root', digest: 'sha256', ext: 'ek' });

  it('RSA and ECDSA signatures with SHA-1, SHA-256 and SHA-384 verify', () => {
    expect(sources(verifyChain(eccEk.cert, [root, int]))).toEqual(['int.pem', 'root.pem']);
    expect(verifyChain(eccEk.cert, [root, int]).verified).toBe(true);
    expect(verifyChain(rsaEk.cert, [int, root]).verified).toBe(true);
    expect(verifyChain(rsaSha256Ek.cert, [int, root]).verified).toBe(true);
  });

  it('an intermediate alone is no chain: its issuer is sought', () => {
    const r = verifyChain(eccEk.cert, [int]);
    expect(failure(r)).toBe('no-issuer');
    expect(sources(r)).toEqual(['int.pem']);
  });

  it('a CA of the right name but another key: signature-fails', () => {
    const imposter = make('imposter', { cn: 'Test EK Intermediate', key: 'p384', issuer: 'root', digest: 'sha256', ext: 'ca' });
    expect(failure(verifyChain(eccEk.cert, [imposter, root]))).toBe('signature-fails');
    // Beside the real one, the real one is found.
    expect(verifyChain(eccEk.cert, [imposter, int, root]).verified).toBe(true);
  });

  it('an issuer that is no CA: not-a-ca', () => {
    make('notca', { cn: 'Not A CA', key: 'p256', issuer: 'root', digest: 'sha256', ext: 'noca' });
    const leaf = make('under-notca', { cn: 'leaf', key: 'p256', issuer: 'notca', digest: 'sha256', ext: 'ek' });
    const notca = { cert: parseX509(pemCertificates(readFileSync(join(dir, 'notca.pem')))[0]!), source: 'notca.pem' };
    expect(failure(verifyChain(leaf.cert, [notca, root]))).toBe('not-a-ca');
  });

  it('an RSA-PSS signature is not checked, and says so', () => {
    const pssInt = make('pss-int', { cn: 'PSS Intermediate', key: 'rsa', issuer: 'root', digest: 'sha256', ext: 'ca', pss: true });
    const leaf = make('under-pss', { cn: 'leaf', key: 'p256', issuer: 'pss-int', digest: 'sha256', ext: 'ek' });
    const r = verifyChain(leaf.cert, [pssInt, root]);
    expect(failure(r)).toBe('unsupported-signature');
    expect(message(r)).toContain('1.2.840.113549.1.1.10');
  });

  it('a chain of eight CAs verifies; a longer one is cut off', () => {
    let issuer = 'root';
    const pool = [root];
    for (let i = 1; i <= 8; i++) {
      pool.push(make(`long${i}`, { cn: `Long ${i}`, key: 'p256', issuer, digest: 'sha256', ext: 'ca' }));
      issuer = `long${i}`;
    }
    const eight = make('leaf-under-7', { cn: 'leaf 7', key: 'p256', issuer: 'long7', digest: 'sha256', ext: 'ek' });
    const nine = make('leaf-under-8', { cn: 'leaf 8', key: 'p256', issuer: 'long8', digest: 'sha256', ext: 'ek' });
    expect(verifyChain(eight.cert, pool).verified).toBe(true);
    expect(sources(verifyChain(eight.cert, pool))).toHaveLength(8);
    expect(failure(verifyChain(nine.cert, pool))).toBe('too-long');
  });
});

import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { fleetCli as fleet } from '../fleet-cli.js';
import { EXPECTED, TCG_CERTS, tcgCert } from './tcg-certs.js';

const STM = `${TCG_CERTS}certificates/stMicroCaCerts`;
const UNTOUCHED = 'certificates/nuc-1/ek_cert_untouched.cer';

/** HIRS's asserted value of `field` for `file`. */
const asserted = (file: string, field: string) => EXPECTED[file]!.asserted.find((a) => a.field === field)!.value;

describe.concurrent('fleet ek-cert', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ek-cert-cli-'));
  afterAll(() => rmSync(dir, { recursive: true }));
  // HIRS's trust store for nuc-2: the Fake Root CA and its STM intermediate.
  const fake = join(dir, 'fake');
  mkdirSync(fake);
  for (const f of ['fakeCA.pem', 'fakestmtpmekint02.pem']) copyFileSync(`${TCG_CERTS}certificates/${f}`, join(fake, f));

  it('--json: the TPM HIRS asserts, the NV form, and the chain up to the STM root', async ({ expect }) => {
    const run = await fleet('ek-cert', '--json', TCG_CERTS + UNTOUCHED, '--roots', STM);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    const r = JSON.parse(run.stdout);
    const nuc2 = 'certificates/nuc-2/tpmcert.pem';
    expect(r.tpm).toEqual({
      manufacturer: asserted(nuc2, 'tpm_manufacturer'),
      vendor: 'STM',
      model: asserted(nuc2, 'tpm_model'),
      version: asserted(nuc2, 'tpm_version'),
    });
    expect(r.spec).toEqual({
      family: asserted(nuc2, 'tpm_spec.family'),
      level: asserted(nuc2, 'tpm_spec.level'),
      revision: asserted(nuc2, 'tpm_spec.revision'),
    });
    expect(r.stored).toEqual({ encoding: 'der', tcgHeader: true, trailingBytes: 0 });
    expect(r.ekHash).toMatch(/^[0-9a-f]{64}$/);
    expect(r.validity).toBe('expired');
    expect(r.chain.verified).toBe(true);
    expect(r.chain.failure).toBeNull();
    expect(r.chain.certificates.map((c: any) => [c.source, c.root])).toEqual([
      ['stmtpmekint02.crt', false],
      ['stmtpmekroot.crt', false],
      ['gstpmroot.crt', true],
    ]);
  });

  it('the same certificate gives the same EK hash with its header, without it, and as PEM', async ({ expect }) => {
    const files = [UNTOUCHED, 'certificates/nuc-1/ek_cert_7_byte_header_removed.cer', 'certificates/nuc-2/tpmcert.pem'];
    const hashes = await Promise.all(files.map(async (f) => JSON.parse((await fleet('ek-cert', '--json', TCG_CERTS + f)).stdout).ekHash));
    expect(new Set(hashes).size).toBe(1);
  });

  it('prints the key hash, the TPM, the assertions and the chain for people', async ({ expect }) => {
    const run = await fleet('ek-cert', TCG_CERTS + 'certificates/nuc-2/tpmcert.pem', '--roots', fake);
    expect(run.code).toBe(0);
    const hash = JSON.parse((await fleet('ek-cert', '--json', TCG_CERTS + 'certificates/nuc-2/tpmcert.pem')).stdout).ekHash;
    expect(run.stdout).toMatch(/^EK certificate: PEM$/m);
    expect(run.stdout).toMatch(new RegExp(`^  EK hash {11}${hash}$`, 'm'));
    expect(run.stdout).toMatch(/^ {2}TPM {15}id:53544D20 \(STM\), model ST33ZP24PVSP, version id:0D0C$/m);
    expect(run.stdout).toMatch(/^ {2}TPM spec {10}family 1\.2, level 2, revision 116$/m);
    expect(run.stdout).toMatch(
      /^ {2}assertions {8}version 0; field upgradeable; EK injected; EK made by the TPM manufacturer; certificate made by the TPM manufacturer$/m,
    );
    expect(run.stdout).toMatch(/^ {2}valid {13}2014-02-23 to 2024-02-23: expired on \d{4}-\d\d-\d\d$/m);
    expect(run.stdout).toMatch(/^ {2}chain {13}verified up to the root fakeCA\.pem$/m);
    expect(run.stdout).toMatch(
      /^ {4}issued by fakestmtpmekint02\.pem: C=CH, O=STMicroelectronics NV, CN=STM TPM EK Intermediate CA 02 \(valid to 2029-12-31\)$/m,
    );
    expect(run.stdout).toMatch(/^ {4}issued by fakeCA\.pem: CN=Fake Root CA \(root; valid to 2047-01-24\)$/m);
    expect(run.stdout).toContain('approves nothing');
  });

  it('says why a chain does not verify, and exits 0: the certificate was read', async ({ expect }) => {
    const file = 'certificates/ek_cert_with_padded_bytes.cer';
    const run = await fleet('ek-cert', '--json', TCG_CERTS + file, '--roots', STM);
    expect(run.code).toBe(0);
    const r = JSON.parse(run.stdout);
    expect(r.issuer).toBe(asserted(file, 'issuer'));
    expect(r.stored.trailingBytes).toBe(192);
    expect(r.chain).toEqual({
      verified: false,
      certificates: [],
      failure: { reason: 'no-issuer', message: `no CA certificate is named ${r.issuer}, the issuer of the EK certificate` },
    });
    const text = await fleet('ek-cert', TCG_CERTS + file);
    expect(text.stdout).toMatch(/^ {2}chain {13}not checked: give --roots DIR$/m);
    expect(text.stdout).toMatch(/^EK certificate: DER, then 192 bytes of padding that are not part of it$/m);
  });

  // A roots directory holding a CA certificate and an EK certificate with padding after its DER, which is no certificate.
  const mixed = join(dir, 'mixed');
  mkdirSync(mixed);
  for (const f of ['fakeCA.pem', 'ek_cert_with_padded_bytes.cer']) copyFileSync(`${TCG_CERTS}certificates/${f}`, join(mixed, f));

  const truncated = join(dir, 'truncated.cer');
  writeFileSync(truncated, tcgCert('certificates/ek_cert_with_padded_bytes.cer').subarray(0, 42));
  const bad: Array<[string, string[], string]> = [
    ['a truncated certificate', [truncated], 'ek-cert-malformed'],
    ['a missing file', [join(dir, 'nope.cer')], 'ek-cert-unreadable'],
    ['a missing roots directory', [TCG_CERTS + UNTOUCHED, '--roots', join(dir, 'nope')], 'ek-roots-unreadable'],
    ['a roots directory holding a file that is no certificate', [TCG_CERTS + UNTOUCHED, '--roots', mixed], 'ek-roots-invalid'],
  ];
  for (const [what, args, code] of bad) {
    it(`refuses ${what} with one line naming ${code}`, async ({ expect }) => {
      const run = await fleet('ek-cert', '--json', ...args);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(new RegExp(`^fleet ek-cert: .*\\[${code}\\]\\n$`));
    });
  }

  it('names the file that is no certificate', async ({ expect }) => {
    const run = await fleet('ek-cert', TCG_CERTS + UNTOUCHED, '--roots', mixed);
    expect(run.stderr).toContain('ek_cert_with_padded_bytes.cer in the roots directory is not a certificate: 192 bytes follow the certificate');
  });

  for (const args of [
    [],
    ['--roots'],
    [TCG_CERTS + UNTOUCHED, '--roots'],
    [TCG_CERTS + UNTOUCHED, '--roots', STM, '--roots', STM],
    ['a', 'b'],
    ['--verbose', 'a'],
  ]) {
    it(`prints the usage for ${JSON.stringify(args)}`, async ({ expect }) => {
      const run = await fleet('ek-cert', ...args);
      expect(run.code).toBe(2);
      expect(run.stderr).toBe('usage: fleet ek-cert [--json] FILE [--roots DIR]\n');
    });
  }

  it('is listed by fleet --help', async ({ expect }) => {
    expect((await fleet('--help')).stdout).toMatch(/^ {2}ek-cert +read an EK certificate/m);
  });
});

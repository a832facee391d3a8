import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { unwrapStored } from '../../shared/ek-cert/stored.js';
import { fleetCli as fleet } from '../fleet-cli.js';
import { issuePlatformCertificate, makeTestCa } from '../platform-cert-issuer.js';
import { EXPECTED, TCG_CERTS, tcgCert } from './tcg-certs.js';

const PC = 'validation/platform_credentials/';
const INTEL_CHAIN = `${TCG_CERTS}${PC}intel_chain/root`;

/** HIRS's asserted value of `field` for `file`. */
const asserted = (file: string, field: string) => EXPECTED[file]!.asserted.find((a) => a.field === field)!.value;

describe.concurrent('fleet platform-cert', () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-cert-cli-'));
  afterAll(() => rmSync(dir, { recursive: true }));
  // HIRS's trust store for plat_cert3.pem: the test Intel root and intermediate (their keys are not copied).
  const intel = join(dir, 'intel');
  mkdirSync(intel);
  for (const f of ['rootca.crt', 'intermediate1.crt']) copyFileSync(join(INTEL_CHAIN, f), join(intel, f));

  it('--json: the platform, its holder and serials HIRS asserts, one stable object', async ({ expect }) => {
    const file = `${PC}Intel_pc4.pem`;
    const run = await fleet('platform-cert', '--json', TCG_CERTS + file);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(1);
    const r = JSON.parse(run.stdout);
    expect(r.platform).toEqual({
      manufacturer: asserted(file, 'platform_manufacturer'),
      manufacturerId: null,
      model: asserted(file, 'platform_model'),
      version: asserted(file, 'platform_version'),
      serial: asserted(file, 'platform_serial'),
      chassisSerial: asserted(file, 'chassis_serial_number'),
      baseboardSerial: asserted(file, 'platform_serial'),
    });
    expect(r.holder).toEqual({ issuer: 'CN=STMicro', serial: '0700818567FF35791690D2D404945DF56B0E6DC7' });
    expect([r.credentialType, r.kind, r.encoding]).toEqual([asserted(file, 'credential_type'), 'base', 'der']);
    expect(r.notBefore).toBe(new Date(String(asserted(file, 'not_before'))).toISOString());
    expect(r.chain).toBeNull();
    expect(Object.keys(r)).toEqual([
      'encoding',
      'credentialType',
      'kind',
      'credentialTypeOid',
      'platform',
      'holder',
      'spec',
      'credentialSpec',
      'tbb',
      'configuration',
      'configurationUri',
      'serial',
      'issuer',
      'notBefore',
      'notAfter',
      'validity',
      'signatureAlgorithm',
      'authorityKeyId',
      'caIssuersUri',
      'at',
      'chain',
    ]);
  });

  it('verifies plat_cert3.pem up to the Intel test root, as HIRS does, and prints it for people', async ({ expect }) => {
    const json = JSON.parse((await fleet('platform-cert', '--json', `${TCG_CERTS}${PC}plat_cert3.pem`, '--roots', intel)).stdout);
    expect(json.chain.verified).toBe(true);
    expect(json.chain.certificates.map((c: any) => [c.source, c.root])).toEqual([
      ['intermediate1.crt', false],
      ['rootca.crt', true],
    ]);
    const run = await fleet('platform-cert', `${TCG_CERTS}${PC}plat_cert3.pem`, '--roots', intel);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Platform certificate: PEM, TCG Trusted Platform Endorsement$/m);
    expect(run.stdout).toMatch(/^ {2}platform {10}Intel \(1\.3\.6\.1\.4\.1\.343\), model S2600KP, version H76962-350$/m);
    expect(run.stdout).toMatch(/^ {2}platform serial {3}BQKP52840678$/m);
    expect(run.stdout).toMatch(/^ {2}chassis serial {4}\(none\)$/m);
    expect(run.stdout).toMatch(/^ {2}holder {12}the EK certificate CN=STM TPM EK Intermediate CA 02, O=STMicroelectronics NV, C=CH, serial \d+$/m);
    expect(run.stdout).toMatch(/^ {2}kind {14}base: the platform as built$/m);
    expect(run.stdout).toMatch(/^ {2}valid {13}2017-08-20 to 2020-08-20: expired on \d{4}-\d\d-\d\d$/m);
    expect(run.stdout).toMatch(/^ {2}chain {13}verified up to the root rootca\.crt$/m);
    expect(run.stdout).toMatch(
      /^ {4}issued by intermediate1\.crt: CN=Intel Intermediate CA, ST=Some-State, C=US, O=Intel \(expired: 2018-07-11 to 2020-07-10\)$/m,
    );
    expect(run.stdout).toContain('approves nothing');
  });

  it('shows a delta certificate as one, its holder the base certificate, and its components with their status', async ({ expect }) => {
    const run = await fleet('platform-cert', `${TCG_CERTS}${PC}plat_delta_cert1.pem`);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^ {2}kind {14}delta: records a change to the platform of its base certificate$/m);
    expect(run.stdout).toMatch(/^ {2}holder {12}the base platform certificate C=US, .*, serial 602967EA7924FDEE6CC150B91E83777D1F427999$/m);
    expect(run.stdout).toMatch(/^ {4}2\. Component Corp XT98287LL, serial F981-01, revision 2\.1, class TCG 00000041, .*, added$/m);
    expect(run.stdout).toMatch(/^ {2}properties {8}TSC Enabled=true \(added\), AMT=false \(modified\)$/m);
  });

  it('says why a chain does not verify, and exits 0: the certificate was read', async ({ expect }) => {
    const run = await fleet('platform-cert', '--json', `${TCG_CERTS}${PC}plat_cert1.pem`, '--roots', intel);
    expect(run.code).toBe(0);
    const r = JSON.parse(run.stdout);
    expect(r.chain).toEqual({
      verified: false,
      certificates: [],
      failure: { reason: 'no-issuer', message: `no CA certificate is named ${r.issuer}, the issuer of the platform certificate` },
    });
    expect((await fleet('platform-cert', `${TCG_CERTS}${PC}plat_cert1.pem`)).stdout).toMatch(/^ {2}chain {13}not checked: give --roots DIR$/m);
  });

  it('reads and verifies a certificate the test CA issued for an EK certificate, with its chassis and baseboard serials', async ({ expect }) => {
    const ca = makeTestCa();
    const roots = join(dir, 'test-ca');
    mkdirSync(roots);
    writeFileSync(join(roots, 'ca.pem'), ca.pem);
    const ek = unwrapStored(tcgCert('certificates/nuc-2/tpmcert.pem')).der;
    const file = join(dir, 'issued.der');
    writeFileSync(file, issuePlatformCertificate(ca, ek, { platformSerial: 'SYS-1', chassisSerial: 'CH-1', baseboardSerial: 'BB-1' }));
    const r = JSON.parse((await fleet('platform-cert', '--json', file, '--roots', roots)).stdout);
    expect(r.platform).toMatchObject({ serial: 'SYS-1', chassisSerial: 'CH-1', baseboardSerial: 'BB-1' });
    expect(r.holder).toEqual({ issuer: 'C=CH, O=STMicroelectronics NV, CN=STM TPM EK Intermediate CA 02', serial: '0700818567FF35791690D2D404945DF56B0E6DC7' });
    expect(r.chain.verified).toBe(true);
    expect(r.signatureAlgorithm).toBe('ecdsa-with-SHA256');
  });

  const truncated = join(dir, 'truncated.cer');
  writeFileSync(truncated, tcgCert(`${PC}Intel_pc2.cer`).subarray(0, 300));
  const empty = join(dir, 'empty');
  mkdirSync(empty);
  const bad: Array<[string, string[], string, RegExp]> = [
    ['a truncated certificate', [truncated], 'platform-cert-malformed', /runs \d+ bytes past its end/],
    ['a certificate HIRS rejects (Intel_pc1.cer)', [`${TCG_CERTS}${PC}Intel_pc1.cer`], 'platform-cert-malformed', /not a platform certificate/],
    ['an EK certificate', [`${TCG_CERTS}certificates/nuc-2/tpmcert.pem`], 'platform-cert-malformed', /not an X\.509 attribute certificate/],
    ['a missing file', [join(dir, 'nope.cer')], 'platform-cert-unreadable', /cannot read/],
    ['a missing roots directory', [`${TCG_CERTS}${PC}plat_cert3.pem`, '--roots', join(dir, 'nope')], 'platform-roots-unreadable', /roots directory/],
    [
      'an empty roots directory (HIRS: no initialized trust store)',
      [`${TCG_CERTS}${PC}plat_cert3.pem`, '--roots', empty],
      'platform-roots-invalid',
      /holds no certificate/,
    ],
    [
      'a roots directory holding a platform certificate',
      [`${TCG_CERTS}${PC}plat_cert3.pem`, '--roots', `${TCG_CERTS}validation/platform_credentials_2`],
      'platform-roots-invalid',
      /basic_plat_cert\.pem in the roots directory is not a certificate/,
    ],
  ];
  for (const [what, args, code, message] of bad) {
    it(`refuses ${what} with one line naming ${code}`, async ({ expect }) => {
      const run = await fleet('platform-cert', '--json', ...args);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(new RegExp(`^fleet platform-cert: .*\\[${code}\\]\\n$`));
      expect(run.stderr).toMatch(message);
    });
  }

  for (const args of [[], ['--roots'], ['a', 'b'], ['--verbose', 'a']]) {
    it(`prints the usage for ${JSON.stringify(args)}`, async ({ expect }) => {
      const run = await fleet('platform-cert', ...args);
      expect(run.code).toBe(2);
      expect(run.stderr).toBe('usage: fleet platform-cert [--json] FILE [--roots DIR]\n');
    });
  }

  it('is listed by fleet --help', async ({ expect }) => {
    expect((await fleet('--help')).stdout).toMatch(/^ {2}platform-cert +read a TCG platform certificate/m);
  });
});

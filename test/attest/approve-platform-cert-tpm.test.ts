import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ATTEST_LINES } from '../../agent/attest/lines.js';
import { ekHashOfCertificate } from '../../shared/ek-cert/ek-certificate.js';
import { parseX509 } from '../../shared/ek-cert/certificate.js';
import { nameText } from '../../shared/ek-cert/names.js';
import { APPROVE_LINES as L } from '../../verifier/approve-lines.js';
import { fleetCli } from '../fleet-cli.js';
import { type FleetServe, startFleetServe } from '../fleet-serve.js';
import { matching } from '../line-pattern.js';
import { issuePlatformCertificate, makeTestCa, type PlatformFields, type TestCa } from '../platform-cert-issuer.js';
import { type BootedMachine, bootMachine } from '../swtpm/booted-machine.js';
import { goldenTpm, type ProvisionedTpm } from '../swtpm/provision.js';
import { RIG_CATALOGUE } from '../swtpm/rig.js';
import { openDatabase } from '../../verifier/state/database.js';
import { LocalStore } from '../../verifier/state/local-store.js';

/**
 * An EK certificate of a key of the forger's own, issued by a CA of the forger's own that bears
 * the genuine issuer's name, with the genuine certificate's serial: what a holder check alone accepts.
 */
function forgedEkCertificate(genuine: Uint8Array): Uint8Array {
  const work = mkdtempSync(join(tmpdir(), 'fleet-forged-'));
  const f = (name: string) => join(work, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'pipe', 'ignore'] });
  writeFileSync(f('genuine.der'), genuine);
  const serial = openssl('x509', '-inform', 'DER', '-in', f('genuine.der'), '-noout', '-serial').toString().trim().split('=')[1]!;
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '30', '-subj', '/CN=swtpm-localca');
  openssl('req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', f('ek.key'), '-out', f('ek.csr'), '-subj', '/CN=forged');
  openssl(
    'x509',
    '-req',
    '-in',
    f('ek.csr'),
    '-CA',
    f('ca.pem'),
    '-CAkey',
    f('ca.key'),
    '-set_serial',
    `0x${serial}`,
    '-days',
    '30',
    '-outform',
    'DER',
    '-out',
    f('ek.der'),
  );
  const der = new Uint8Array(readFileSync(f('ek.der')));
  rmSync(work, { recursive: true, force: true });
  return der;
}

/**
 * A machine whose maker shipped a platform certificate for it: its swtpm TPM attests against
 * `fleet serve`, the serial unknown to the nodes file, so the claim waits; `fleet attest approve
 * --platform-cert` then says the certificate ties the machine's serial to its RSA EK certificate,
 * verified up to the maker's CA, and refuses, each with its reason, one that names another serial,
 * one issued for another machine's EK certificate, and one checked against another CA. Whatever
 * it says, the lines approve nothing.
 */
const SERIAL = 'SN-PLATFORM-1';

let dir: string;
let provisioned: ProvisionedTpm;
let machine: BootedMachine;
let fleetd: FleetServe;
let stateDir: string;
/** The maker's CA certificate as --platform-roots takes it, and the platform certificate it issued for the machine. */
let roots: string;
let pcPath: string;
/** swtpm's EK CA certificates, as --ek-roots takes them. */
let ekRoots: string;
const maker = makeTestCa('Fleet Test Platform CA');

/** A directory holding `ca`'s certificate, as --platform-roots takes it. */
async function rootsOf(name: string, ca: TestCa): Promise<string> {
  const roots = join(dir, name);
  await mkdir(roots);
  await writeFile(join(roots, 'platform-ca.pem'), ca.pem);
  return roots;
}

/** A platform certificate `maker` issues for `ekCertificate`, written as a file. */
async function platformCertificate(name: string, ekCertificate: Uint8Array, fields: Partial<PlatformFields> = {}): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, issuePlatformCertificate(maker, ekCertificate, { platformSerial: SERIAL, ...fields }));
  return path;
}

/** `fleet attest approve` for the machine, with swtpm's CA as --ek-roots and these options: its lines, once it exited 0. */
async function approve(...options: string[]): Promise<string[]> {
  return approveIn(stateDir, ...options);
}

async function approveIn(state: string, ...options: string[]): Promise<string[]> {
  const run = await fleetCli('attest', 'approve', SERIAL, '--state', state, '--ek-roots', ekRoots, ...options);
  expect(run, run.stderr).toMatchObject({ code: 0, stderr: '' });
  return run.stdout.trimEnd().split('\n');
}

const platformPart = (lines: string[]) => lines.filter((l) => l.startsWith('  platform certificate: '));
const closing = (lines: string[]) => lines.slice(lines.indexOf(L.approvesNothing()));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fleet-approve-pc-'));
  machine = await bootMachine(dir);
  provisioned = machine.provisioned;
  const nodesPath = join(dir, 'nodes.yaml');
  stateDir = join(dir, 'state');
  await writeFile(nodesPath, stringify({ ...RIG_CATALOGUE, nodes: {} }));
  fleetd = await startFleetServe(['--nodes', nodesPath, '--state', stateDir, '--listen', '127.0.0.1:0', '--syslog-listen', 'off']);
  expect(await machine.attest(fleetd.url, SERIAL)).toEqual([expect.stringMatching(matching(ATTEST_LINES.failed, 'pending-approval', /.*/))]);
  roots = await rootsOf('roots', maker);
  ekRoots = join(dir, 'ek-roots');
  await mkdir(ekRoots);
  await writeFile(join(ekRoots, 'localca.pem'), provisioned.caCertPem);
  pcPath = await platformCertificate('pc.der', provisioned.ekCertRsaDer);
}, 120_000);

afterAll(async () => {
  await fleetd?.stop();
  await machine?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("fleet attest approve --platform-cert on a waiting claim of swtpm's TPM", () => {
  it("says a certificate of the machine's maker ties its serial to its RSA EK certificate, verified, and approves nothing", async () => {
    const ek = parseX509(provisioned.ekCertRsaDer);
    const hashes = { rsa2048: ekHashOfCertificate(provisioned.ekCertRsaDer), eccp256: ekHashOfCertificate(provisioned.ekCertEccDer) };
    const lines = await approve('--platform-cert', pcPath, '--platform-roots', roots);
    expect(platformPart(lines)).toEqual([L.platformTie('platform', SERIAL, 'rsa2048', hashes.rsa2048, nameText(ek.issuer), ek.serial, 'platform-ca.pem')]);
    expect(nameText(ek.issuer)).toBe('CN=swtpm-localca');
    expect(closing(lines)).toEqual([
      L.approvesNothing(),
      L.chainIsNoApproval(),
      L.platformIsNoApproval(),
      L.compare(),
      L.addLines(),
      L.binding('approved_ek_rsa2048', hashes.rsa2048),
      L.binding('approved_ek_eccp256', hashes.eccp256),
    ]);
  });

  it('refuses one that names another serial, saying which it names', async () => {
    const lines = await approve(
      '--platform-cert',
      await platformCertificate('other-serial.der', provisioned.ekCertRsaDer, { platformSerial: 'SN-PLATFORM-2' }),
      '--platform-roots',
      roots,
    );
    expect(platformPart(lines)).toEqual([L.platformCheckFailed('serial', `the machine's serial ${SERIAL} is none of its serials (platform SN-PLATFORM-2)`)]);
    expect(closing(lines)).not.toContain(L.platformIsNoApproval());
  });

  it("refuses one issued for another machine's EK certificate, of the same maker's CA", async () => {
    const other = (await goldenTpm('b')).ekCertRsaDer;
    const held = parseX509(other);
    expect(nameText(held.issuer)).toBe('CN=swtpm-localca');
    const lines = await approve('--platform-cert', await platformCertificate('other-holder.der', other), '--platform-roots', roots);
    expect(platformPart(lines)).toEqual([
      L.platformCheckFailed('holder', `its holder is the EK certificate CN=swtpm-localca, serial ${held.serial}, which is none of those the TPM presented`),
    ]);
    expect(closing(lines)).not.toContain(L.platformIsNoApproval());
  });

  it('refuses one checked against another CA of the same name, and says its chain was not checked without roots', async () => {
    const lines = await approve('--platform-cert', pcPath, '--platform-roots', await rootsOf('impostor-roots', makeTestCa('Fleet Test Platform CA')));
    expect(platformPart(lines)).toEqual([
      L.platformCheckFailed(
        'chain',
        'platform-ca.pem is named CN=Fleet Test Platform CA, the issuer of the platform certificate, but its key does not verify the signature',
      ),
    ]);
    expect(closing(lines)).not.toContain(L.platformIsNoApproval());
    expect(platformPart(await approve('--platform-cert', pcPath))).toEqual([L.platformChainNotChecked()]);
  });

  it('refuses --platform-cert without --ek-roots: a holder alone can be copied', async () => {
    const run = await fleetCli('attest', 'approve', SERIAL, '--state', stateDir, '--platform-cert', pcPath, '--platform-roots', roots);
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toMatch(/^fleet: --platform-cert needs --ek-roots: the EK certificate it names counts only once it verifies to them/);
  });

  it("ties nothing to a forged EK certificate that copies the genuine one's issuer and serial onto another key", async () => {
    // A TPM-less peer's claim of the serial: a software EK, its certificate from a CA of its own named as swtpm's, with the genuine serial.
    const forged = forgedEkCertificate(provisioned.ekCertRsaDer);
    const state = join(dir, 'forged-state');
    const db = openDatabase(state);
    new LocalStore(db).recordClaim({
      serial: SERIAL,
      at: new Date().toISOString(),
      mac: '52:54:00:66:66:66',
      peer: '10.0.1.66',
      switchPort: 'Port 5',
      eks: [{ kind: 'rsa2048', hash: ekHashOfCertificate(forged), certificate: { der: Buffer.from(forged).toString('base64') } }],
    });
    db.close();
    const genuine = parseX509(provisioned.ekCertRsaDer);
    expect(parseX509(forged)).toMatchObject({ serial: genuine.serial });
    const lines = await approveIn(state, '--platform-cert', pcPath, '--platform-roots', roots);
    const part = platformPart(lines);
    expect(part).toHaveLength(1);
    expect(part[0]).toMatch(
      /^ {2}platform certificate: holder not verified: its holder names the rsa2048 EK certificate \(issuer "CN=swtpm-localca", serial .*\), whose chain is not verified to --ek-roots/,
    );
    expect(closing(lines)).not.toContain(L.platformIsNoApproval());
  });

  it.each([
    ['expired', { notBefore: new Date(Date.now() - 3 * 86_400_000), notAfter: new Date(Date.now() - 86_400_000) }, 'expired'],
    ['not yet valid', { notBefore: new Date(Date.now() + 86_400_000), notAfter: new Date(Date.now() + 2 * 86_400_000) }, 'not yet valid'],
  ])('refuses a platform certificate %s when the claim was made', async (_name, dates, words) => {
    const lines = await approve(
      '--platform-cert',
      await platformCertificate(`${words.replaceAll(' ', '-')}.der`, provisioned.ekCertRsaDer, dates),
      '--platform-roots',
      roots,
    );
    expect(platformPart(lines)).toEqual([
      expect.stringMatching(new RegExp(`^ {2}platform certificate: validity not verified: the platform certificate was ${words} when the claim was made`)),
    ]);
    expect(closing(lines)).not.toContain(L.platformIsNoApproval());
  });

  it('refuses a platform certificate whose CA had expired when the claim was made', async () => {
    const expiredCa = makeTestCa('Fleet Expired Platform CA', -1);
    const path = join(dir, 'by-expired-ca.der');
    await writeFile(path, issuePlatformCertificate(expiredCa, provisioned.ekCertRsaDer, { platformSerial: SERIAL }));
    const lines = await approve('--platform-cert', path, '--platform-roots', await rootsOf('expired-roots', expiredCa));
    expect(platformPart(lines)).toEqual([
      expect.stringMatching(/^ {2}platform certificate: validity not verified: its CA platform-ca\.pem was expired when the claim was made/),
    ]);
  });

  it('stops before it prints when the certificate does not read', async () => {
    await writeFile(join(dir, 'cut.der'), (await readFile(pcPath)).subarray(0, 100));
    const cut = await fleetCli('attest', 'approve', SERIAL, '--state', stateDir, '--ek-roots', ekRoots, '--platform-cert', join(dir, 'cut.der'));
    expect(cut).toMatchObject({ code: 1, stdout: '' });
    expect(cut.stderr).toMatch(/^fleet: --platform-cert \S+cut\.der: .*\[platform-cert-malformed\]\n$/);
  });
});

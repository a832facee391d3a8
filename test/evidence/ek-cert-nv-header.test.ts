import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ATTEST_LINES } from '../../agent/attest/lines.js';
import { ekHashOfCertificate } from '../../shared/ek-cert/ek-certificate.js';
import { EK_INDEX } from '../../shared/tpm/constants.js';
import { EK_KINDS } from '../../shared/wire/schemas.js';
import { APPROVE_LINES as L } from '../../verifier/approve-lines.js';
import { fleetCli } from '../fleet-cli.js';
import { type FleetServe, startFleetServe } from '../fleet-serve.js';
import { matching } from '../line-pattern.js';
import { TESTDATA } from '../testdata.js';
import { type BootedMachine, bootMachine } from '../swtpm/booted-machine.js';
import type { ProvisionedTpm } from '../swtpm/provision.js';
import { RIG_CATALOGUE } from '../swtpm/rig.js';
import { nodeEntry } from '../node-entry.js';
import { tpm2 } from '../swtpm/tpm2-tools.js';

/**
 * A TPM whose RSA EK certificate sits in NV as TPM 1.2-era makers store it (the TCG PC Client
 * header before the DER, the rest of a larger index after it), attesting against `fleet serve`:
 * the agent sends the index whole, and fleetd reads the certificate in it, so the TPM waits for
 * approval, and once approved is admitted, rather than being refused ek-cert-mismatch. Between
 * the two, `fleet attest approve` shows what its certificates say, and with --ek-roots whether
 * they chain to the CA swtpm_localca issued them from.
 */
const SERIAL = 'SN-NV-HEADER-1';
const RSA_CERT_INDEX = `0x${EK_INDEX.rsa.cert.toString(16)}`;
/** What provision.ts gives an EK certificate index: platform-made and write-locked, as a shipped TPM's. */
const EK_CERT_NV_ATTRS = 'ppwrite|writedefine|ppread|ownerread|authread|no_da|platformcreate';

let dir: string;
let provisioned: ProvisionedTpm;
let machine: BootedMachine;
let fleetd: FleetServe;
let nodesPath: string;
let stateDir: string;

/** The TCG stored-certificate header (tag 0x1001, full certificate, size, tag 0x1002), the DER, then 0xff to the index's end. */
function storedInNv(der: Buffer): Buffer {
  const header = Buffer.from([0x10, 0x01, 0x00, 0x00, 0x00, 0x10, 0x02]);
  header.writeUInt16BE(der.length + 2, 3);
  return Buffer.concat([header, der, Buffer.alloc(121, 0xff)]);
}

async function writeNodes(approved: Record<string, string>): Promise<void> {
  const node = nodeEntry({ serial: SERIAL, disk_serial: 'S4EVNF0M123456', ...approved });
  await writeFile(nodesPath, stringify({ ...RIG_CATALOGUE, nodes: { 'node-1': node } }));
}

function attest(): Promise<string[]> {
  return machine.attest(fleetd.url, SERIAL);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fleet-ek-cert-nv-'));
  machine = await bootMachine(dir, async (swtpm, p) => {
    const nv = storedInNv(p.ekCertRsaDer);
    await writeFile(join(dir, 'ek-rsa.nv'), nv);
    const t = (args: string[]) => tpm2(swtpm.socketPath, args, { cwd: dir });
    await t(['nvundefine', '-C', 'p', RSA_CERT_INDEX]);
    await t(['nvdefine', RSA_CERT_INDEX, '-C', 'p', '-s', String(nv.length), '-a', EK_CERT_NV_ATTRS]);
    await t(['nvwrite', RSA_CERT_INDEX, '-C', 'p', '-i', 'ek-rsa.nv']);
    await t(['nvwritelock', RSA_CERT_INDEX, '-C', 'p']);
    expect((await t(['nvread', RSA_CERT_INDEX])).raw.equals(nv)).toBe(true);
  });
  provisioned = machine.provisioned;
  nodesPath = join(dir, 'nodes.yaml');
  stateDir = join(dir, 'state');
  await writeNodes({});
  fleetd = await startFleetServe(['--nodes', nodesPath, '--state', stateDir, '--listen', '127.0.0.1:0', '--syslog-listen', 'off']);
}, 120_000);

afterAll(async () => {
  await fleetd?.stop();
  await machine?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('an EK certificate stored with the TCG NV header and padding', () => {
  it('reaches fleetd whole, and the TPM waits for approval: its certificate certifies its EK', async () => {
    expect(await attest()).toEqual([expect.stringMatching(matching(ATTEST_LINES.failed, 'pending-approval', /.*/))]);
  });

  it('fleet attest approve names the TPM its certificates name, and the chain to the CA that issued them, approving nothing', async () => {
    const hashes = { rsa2048: ekHashOfCertificate(provisioned.ekCertRsaDer), eccp256: ekHashOfCertificate(provisioned.ekCertEccDer) };
    const roots = join(dir, 'ek-roots');
    await mkdir(roots);
    await writeFile(join(roots, 'localca.pem'), provisioned.caCertPem);
    const approve = await fleetCli('attest', 'approve', SERIAL, '--state', stateDir, '--ek-roots', roots);
    expect(approve).toMatchObject({ code: 0, stderr: '' });
    const lines = approve.stdout.trimEnd().split('\n');
    for (const kind of EK_KINDS) {
      const at = lines.indexOf(L.certificate(kind, hashes[kind], 'id:00001014', 'swtpm', 'id:20191023'));
      expect(at, `${kind}'s certificate line in\n${approve.stdout}`).toBeGreaterThan(0);
      expect(lines[at + 1]).toMatch(
        matching(L.certificateNames, 'CN=swtpm-localca', 'CN=unknown', /[\d-]+/, /[\d-]+/, 'valid', /[\d-]+/, 'family 2.0, level 0, revision 164'),
      );
      expect(lines.slice(at + 2, at + 5)).toEqual([
        L.chainVerified('localca.pem#2'),
        expect.stringMatching(matching(L.issuedBy, 'localca.pem#1', /.+/)),
        expect.stringMatching(matching(L.issuedBy, 'localca.pem#2', /.+/)),
      ]);
    }
    expect(lines.slice(lines.indexOf(L.approvesNothing()))).toEqual([
      L.approvesNothing(),
      L.chainIsNoApproval(),
      L.compare(),
      L.addLines(),
      L.binding('approved_ek_rsa2048', hashes.rsa2048),
      L.binding('approved_ek_eccp256', hashes.eccp256),
    ]);
  });

  it('with --ek-roots of another maker, says why the chain does not verify; a directory that does not read stops it', async () => {
    const other = await fleetCli('attest', 'approve', SERIAL, '--state', stateDir, '--ek-roots', `${TESTDATA}tcg-certs/certificates/stMicroCaCerts`);
    expect(other.code).toBe(0);
    const notVerified = other.stdout.split('\n').filter((l) => l.startsWith(L.chainNotVerified('')));
    expect(notVerified).toEqual([
      expect.stringMatching(matching(L.chainNotVerified, /no CA certificate is named .+, the issuer of the EK certificate/)),
      expect.stringMatching(matching(L.chainNotVerified, /no CA certificate is named .+, the issuer of the EK certificate/)),
    ]);
    expect(other.stdout).not.toContain(L.chainIsNoApproval());
    const missing = await fleetCli('attest', 'approve', SERIAL, '--state', stateDir, '--ek-roots', join(dir, 'no-such-dir'));
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(missing.stderr).toMatch(/^fleet: --ek-roots \S+no-such-dir: cannot read the roots directory: .*\[ek-roots-unreadable\]\n$/);
  });

  it('once approved, is admitted', async () => {
    await writeNodes({
      approved_ek_rsa2048: ekHashOfCertificate(provisioned.ekCertRsaDer),
      approved_ek_eccp256: ekHashOfCertificate(provisioned.ekCertEccDer),
    });
    expect(await attest()).toEqual([ATTEST_LINES.passed()]);
  });
});

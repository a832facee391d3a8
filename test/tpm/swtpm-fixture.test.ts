import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { tpm2ToolsAttestMs, tpm2ToolsAttestSteps } from '../../bench/tpm2-tools.js';
import { copyTpmState, goldenTpm, type ProvisionedTpm } from '../swtpm/provision.js';
import { startSwtpm, type RunningSwtpm } from '../swtpm/swtpm.js';
import { tpm2 } from '../swtpm/tpm2-tools.js';

const exec = promisify(execFile);

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'fleet-swtpm-test-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A private copy of a golden TPM, running; stopped and removed after the test. */
async function running(kind: 'a' | 'b', persistEks = false): Promise<{ tpm: ProvisionedTpm; sw: RunningSwtpm; dir: string }> {
  const dir = await tempDir();
  const tpm = await copyTpmState(await goldenTpm(kind, { persistEks }), join(dir, 'state'));
  const sw = await startSwtpm(tpm.stateDir);
  cleanups.push(() => sw.stop());
  return { tpm, sw, dir };
}

/** DER SubjectPublicKeyInfo of a PEM public key, via openssl. */
async function spkiOfPem(pemPath: string): Promise<Buffer> {
  const { stdout } = await exec('openssl', ['pkey', '-pubin', '-in', pemPath, '-outform', 'der'], { encoding: 'buffer' });
  return stdout;
}

/** DER SubjectPublicKeyInfo of a DER certificate, via openssl. */
async function spkiOfCert(dir: string, certDer: Buffer, name: string): Promise<Buffer> {
  const certPath = join(dir, `${name}.der`);
  await writeFile(certPath, certDer);
  const { stdout } = await exec('openssl', ['x509', '-inform', 'der', '-in', certPath, '-noout', '-pubkey']);
  const pemPath = join(dir, `${name}.pub.pem`);
  await writeFile(pemPath, stdout);
  return spkiOfPem(pemPath);
}

/** The EK public that TPM2_CreatePrimary makes with the TCG default template (tpm2_createek). */
async function createEk(sw: RunningSwtpm, dir: string, alg: 'rsa' | 'ecc'): Promise<Buffer> {
  await tpm2(sw.socketPath, ['createek', '-G', alg, '-c', `ek-${alg}.ctx`, '-u', `ek-${alg}.pem`, '-f', 'pem'], { cwd: dir });
  await tpm2(sw.socketPath, ['flushcontext', '-t']);
  return spkiOfPem(join(dir, `ek-${alg}.pem`));
}

describe('provisioned swtpm', () => {
  it('holds RSA and P-256 EK certs in NV whose keys are the L-1 / L-2 EKs, issued by the private CA', async () => {
    const { tpm, sw, dir } = await running('a');
    const rsaNv = (await tpm2(sw.socketPath, ['nvread', '0x01C00002'])).raw;
    const eccNv = (await tpm2(sw.socketPath, ['nvread', '0x01C0000A'])).raw;
    expect(rsaNv.equals(tpm.ekCertRsaDer)).toBe(true);
    expect(eccNv.equals(tpm.ekCertEccDer)).toBe(true);

    expect((await spkiOfCert(dir, rsaNv, 'rsa')).equals(await createEk(sw, dir, 'rsa'))).toBe(true);
    expect((await spkiOfCert(dir, eccNv, 'ecc')).equals(await createEk(sw, dir, 'ecc'))).toBe(true);

    const { stdout: eccText } = await exec('openssl', ['x509', '-inform', 'der', '-in', join(dir, 'ecc.der'), '-noout', '-text']);
    expect(eccText).toContain('NIST CURVE: P-256');
    const { stdout: rsaText } = await exec('openssl', ['x509', '-inform', 'der', '-in', join(dir, 'rsa.der'), '-noout', '-text']);
    expect(rsaText).toContain('Public-Key: (2048 bit)');

    const caPath = join(dir, 'ca.pem');
    await writeFile(caPath, tpm.caCertPem);
    for (const name of ['rsa', 'ecc']) {
      const pemPath = join(dir, `${name}.pem`);
      await exec('openssl', ['x509', '-inform', 'der', '-in', join(dir, `${name}.der`), '-out', pemPath]);
      const { stdout } = await exec('openssl', ['verify', '-CAfile', caPath, pemPath]);
      expect(stdout.trim()).toBe(`${pemPath}: OK`);
    }

    // Like a shipped TPM: cert indices write-locked, swtpm_setup's P-384 EK and cert gone.
    const nvPublic = (await tpm2(sw.socketPath, ['nvreadpublic'])).stdout;
    expect(nvPublic.match(/writelocked/g)).toHaveLength(2);
    expect((await tpm2(sw.socketPath, ['getcap', 'handles-nv-index'])).stdout).not.toContain('0x1C00016');
    expect((await tpm2(sw.socketPath, ['getcap', 'handles-persistent'])).stdout.trim()).toBe('');
  });

  it('gives another machine a different TPM: different EKs, same vendor CA', async () => {
    const a = await goldenTpm('a');
    const b = await goldenTpm('b');
    const dir = await tempDir();
    expect((await spkiOfCert(dir, a.ekCertRsaDer, 'a-rsa')).equals(await spkiOfCert(dir, b.ekCertRsaDer, 'b-rsa'))).toBe(false);
    expect((await spkiOfCert(dir, a.ekCertEccDer, 'a-ecc')).equals(await spkiOfCert(dir, b.ekCertEccDer, 'b-ecc'))).toBe(false);
    expect(a.caCertPem).toBe(b.caCertPem);
  });

  it('persists the EKs at 0x81010001 / 0x81010002 when asked, matching the certs', async () => {
    const { tpm, sw, dir } = await running('b', true);
    for (const [handle, cert, name] of [
      ['0x81010001', tpm.ekCertRsaDer, 'rsa'],
      ['0x81010002', tpm.ekCertEccDer, 'ecc'],
    ] as const) {
      const pemPath = join(dir, `persisted-${name}.pem`);
      await tpm2(sw.socketPath, ['readpublic', '-c', handle, '-f', 'pem', '-o', pemPath]);
      expect((await spkiOfPem(pemPath)).equals(await spkiOfCert(dir, cert, name))).toBe(true);
    }
    expect((await tpm2(sw.socketPath, ['getcap', 'handles-transient'])).stdout.trim()).toBe('');
  });

  it('copies are independent: a change in one copy is not seen by another', async () => {
    const first = await running('a');
    await tpm2(first.sw.socketPath, ['nvdefine', '0x01500001', '-C', 'o', '-s', '8']);
    await first.sw.stop();
    const second = await running('a');
    expect((await tpm2(second.sw.socketPath, ['getcap', 'handles-nv-index'])).stdout).not.toContain('0x1500001');
    // The state written back on stop survives a restart of the same copy.
    const again = await startSwtpm(first.tpm.stateDir);
    cleanups.push(() => again.stop());
    expect((await tpm2(again.socketPath, ['getcap', 'handles-nv-index'])).stdout).toContain('0x1500001');
  });
});

describe('startSwtpm', () => {
  it('stop() leaves no swtpm process and removes the sockets', async () => {
    const { sw } = await running('a');
    expect(() => process.kill(sw.pid, 0)).not.toThrow();
    expect(existsSync(sw.socketPath)).toBe(true);
    await sw.stop();
    expect(() => process.kill(sw.pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    expect(existsSync(sw.socketPath)).toBe(false);
    await sw.stop(); // idempotent
  });

  it('fails with swtpm stderr when the state dir cannot be used', async () => {
    const dir = await tempDir();
    const notADir = join(dir, 'file');
    await writeFile(notADir, 'x');
    await expect(startSwtpm(notADir)).rejects.toThrow(/swtpm on .*file: exited during start.*\n.*lockfile/s);
  });
});

describe('tpm2 wrapper', () => {
  it('throws a clear error carrying stderr', async () => {
    const { sw } = await running('a');
    await expect(tpm2(sw.socketPath, ['nvread', '0x01C00099'])).rejects.toThrow(/tpm2 nvread 0x01C00099: exit \d+\n.*ERROR/s);
  });
});

describe('tpm2-tools attestation baseline', () => {
  it('runs the single-EK attestation, verifies it and leaves nothing loaded', async () => {
    const { sw, dir } = await running('a');
    const ms = await tpm2ToolsAttestMs(sw.socketPath, dir);
    expect(ms).toBeGreaterThan(0);
    const steps = await tpm2ToolsAttestSteps(sw.socketPath, dir);
    expect(Object.keys(steps.stepsMs)).toContain('activatecredential');
    expect(Object.keys(steps.stepsMs)).toContain('checkquote');
    for (const kind of ['handles-transient', 'handles-loaded-session', 'handles-saved-session']) {
      expect((await tpm2(sw.socketPath, ['getcap', kind])).stdout.trim()).toBe('');
    }
    expect(await readFile(join(dir, 'activated.bin'))).toEqual(await readFile(join(dir, 'secret.bin')));
  });
});

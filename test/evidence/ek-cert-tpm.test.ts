import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEk, nvChunkSize, releaseEk } from '../../agent/tpm/eks.js';
import { ekHash } from '../../shared/ek/hash.js';
import { verifyChain } from '../../shared/ek-cert/chain.js';
import { parseEkCertificate } from '../../shared/ek-cert/ek-certificate.js';
import { readCaDirectory } from '../../shared/ek-cert/roots.js';
import { Tpm } from '../../shared/tpm/client.js';
import { SocketTransport } from '../../shared/tpm/transport.js';
import { EK_KINDS } from '../../shared/wire/schemas.js';
import { copyTpmState, goldenTpm, type ProvisionedTpm } from '../swtpm/provision.js';
import { type RunningSwtpm, startSwtpm } from '../swtpm/swtpm.js';

const exec = promisify(execFile);

let dir: string;
let provisioned: ProvisionedTpm;
let swtpm: RunningSwtpm;
let tpm: Tpm;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fleet-ek-cert-'));
  provisioned = await copyTpmState(await goldenTpm('a'), join(dir, 'tpm'));
  swtpm = await startSwtpm(provisioned.stateDir);
  tpm = new Tpm(await SocketTransport.connect({ path: swtpm.socketPath }));
});
afterAll(async () => {
  await tpm.close();
  await swtpm.stop();
  await rm(dir, { recursive: true, force: true });
});

/** The SAN's directoryName as openssl prints it, e.g. DirName:/2.23.133.2.1=id:00001014/... */
async function opensslSan(der: Uint8Array, name: string): Promise<string> {
  const path = join(dir, `${name}.der`);
  await writeFile(path, der);
  const { stdout } = await exec('openssl', ['x509', '-inform', 'DER', '-in', path, '-noout', '-ext', 'subjectAltName']);
  return stdout.split('\n')[1]!.trim();
}

describe.each(EK_KINDS)('the %s EK certificate swtpm_setup and swtpm_localca made', (kind) => {
  it("parses as the agent reads it from NV, and its EK hash is the TPM's EK's", async () => {
    const ek = (await loadEk(tpm, kind, await nvChunkSize(tpm)))!;
    try {
      expect(ek.certificate).not.toBeNull();
      const cert = parseEkCertificate(ek.certificate!);
      expect(cert.ekHash).toBe(ekHash(ek.pub));
      expect(cert.key).toBe(kind === 'rsa2048' ? 'RSA-2048' : 'ECC P-256');
      const t = cert.tpm;
      expect(await opensslSan(ek.certificate!, kind)).toBe(`DirName:/2.23.133.2.1=${t.manufacturer}/2.23.133.2.2=${t.model}/2.23.133.2.3=${t.version}`);
      expect(cert.spec?.family).toBe('2.0');
    } finally {
      await releaseEk(tpm, ek);
    }
  });

  it('chains to the private CA: its issuing certificate, then its root', async () => {
    const roots = join(dir, `roots-${kind}`);
    await mkdir(roots);
    await writeFile(join(roots, 'localca.pem'), provisioned.caCertPem);
    const chain = verifyChain(parseEkCertificate(kind === 'rsa2048' ? provisioned.ekCertRsaDer : provisioned.ekCertEccDer).cert, await readCaDirectory(roots));
    expect(chain.verified).toBe(true);
    expect(chain.path.map((c) => c.source)).toEqual(['localca.pem#1', 'localca.pem#2']);
  });
});

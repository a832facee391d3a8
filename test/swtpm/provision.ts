/**
 * Makes swtpm TPM 2.0 states that look like a real PC's TPM: an RSA-2048 EK certificate at NV
 * 0x01C00002 (TCG template L-1) and an ECC P-256 one at 0x01C0000A (L-2), both write-locked and
 * issued by a private CA, optionally with the EKs persisted at 0x81010001 / 0x81010002.
 * Provisioning takes about a second, so tests take a golden state once per process and copy it.
 */
import { execFile } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { EK_INDEX } from '../../shared/tpm/constants.js';
import { atExit } from './exit.js';
import { startSwtpm } from './swtpm.js';
import { tpm2 } from './tpm2-tools.js';

export interface ProvisionOptions {
  /** Persist the EKs at 0x81010001 (RSA) and 0x81010002 (ECC), as many real TPMs ship. */
  persistEks?: boolean;
  /**
   * The private CA's directory (made on first use). Default `<dir>/ca`, a CA of its own; TPMs
   * that share one look like the same vendor's parts.
   */
  caDir?: string;
}

export interface ProvisionedTpm {
  /** swtpm's `--tpmstate dir=`. */
  stateDir: string;
  caDir: string;
  /** The private CA's issuing certificate, then its root (PEM). */
  caCertPem: string;
  /** The RSA-2048 EK certificate as stored at NV 0x01C00002. */
  ekCertRsaDer: Buffer;
  /** The ECC P-256 EK certificate as stored at NV 0x01C0000A. */
  ekCertEccDer: Buffer;
  persistedEks: boolean;
}

/** Where swtpm_setup puts its P-384 EK and its cert (high range); a typical PC TPM has neither. */
const SETUP_ECC_EK_HANDLE = '0x81010016';
const SETUP_ECC_CERT_INDEX = '0x01C00016';

/** Attributes swtpm_setup gives the RSA cert index, as a real EK cert index has (platform-made). */
const EK_CERT_NV_ATTRS = 'ppwrite|writedefine|ppread|ownerread|authread|no_da|platformcreate';

/** The TPM identity swtpm_setup 0.7.1 writes into the RSA cert, so both certs say the same. */
const LOCALCA_TPM_ARGS = [
  '--tpm-spec-family',
  '2.0',
  '--tpm-spec-level',
  '0',
  '--tpm-spec-revision',
  '164',
  '--tpm-manufacturer',
  'id:00001014',
  '--tpm-model',
  'swtpm',
  '--tpm-version',
  'id:20191023',
  '--tpm2',
];

const hex = (n: number): string => `0x${n.toString(16).toUpperCase().padStart(8, '0')}`;

/** Provisions a new TPM (fresh seeds) in `dir`/state; each call is another machine's TPM. */
export async function provisionTpm(dir: string, opts: ProvisionOptions = {}): Promise<ProvisionedTpm> {
  const root = resolve(dir);
  const stateDir = join(root, 'state');
  const caDir = resolve(opts.caDir ?? join(root, 'ca'));
  const persistEks = opts.persistEks ?? false;
  await mkdir(stateDir, { recursive: true });
  const setupConf = await writeCaConfig(caDir);

  // RSA EK + cert at 0x01C00002 (and a P-384 EK we remove below); only the sha256 PCR bank,
  // as on current PCs. --lock-nvram write-locks the cert index like a shipped TPM's.
  await run('swtpm_setup', [
    '--tpm2',
    '--tpmstate',
    stateDir,
    '--config',
    setupConf,
    '--create-ek-cert',
    '--lock-nvram',
    '--pcr-banks',
    'sha256',
    '--overwrite',
  ]);

  const work = await mkdtemp(join(root, 'work-'));
  const tpm = await startSwtpm(stateDir);
  try {
    const t = (args: string[]) => tpm2(tpm.socketPath, args, { cwd: work });
    await t(['evictcontrol', '-C', 'o', '-c', SETUP_ECC_EK_HANDLE]);
    await t(['nvundefine', '-C', 'p', SETUP_ECC_CERT_INDEX]);

    // The L-2 EK's public point, for the cert; `-c <persistent handle>` also persists it.
    await t(['createek', '-G', 'ecc', '-c', persistEks ? hex(EK_INDEX.ecc.persistent) : 'ek-ecc.ctx', '-u', 'ek-ecc.pem', '-f', 'pem']);
    await t(['flushcontext', '-t']);
    const jwk = createPublicKey(await readFile(join(work, 'ek-ecc.pem'))).export({ format: 'jwk' });
    if (jwk.crv !== 'P-256' || !jwk.x || !jwk.y) throw new Error(`ECC EK is not P-256: ${jwk.crv}`);
    const point = `x=${b64urlToHex(jwk.x)},y=${b64urlToHex(jwk.y)},id=secp256r1`;
    await run('swtpm_localca', [
      '--type',
      'ek',
      '--ek',
      point,
      '--dir',
      work,
      ...LOCALCA_TPM_ARGS,
      '--configfile',
      join(caDir, 'swtpm-localca.conf'),
      '--optsfile',
      join(caDir, 'swtpm-localca.options'),
    ]);
    const ekCertEccDer = await readFile(join(work, 'ek.cert'));
    const ecc = hex(EK_INDEX.ecc.cert);
    await t(['nvdefine', ecc, '-C', 'p', '-s', String(ekCertEccDer.length), '-a', EK_CERT_NV_ATTRS]);
    await t(['nvwrite', ecc, '-C', 'p', '-i', 'ek.cert']);
    await t(['nvwritelock', ecc, '-C', 'p']);

    if (!persistEks) await t(['evictcontrol', '-C', 'o', '-c', hex(EK_INDEX.rsa.persistent)]);
    const ekCertRsaDer = (await t(['nvread', hex(EK_INDEX.rsa.cert)])).raw;

    const caCertPem = (await readFile(join(caDir, 'issuercert.pem'), 'utf8')) + (await readFile(join(caDir, 'swtpm-localca-rootca-cert.pem'), 'utf8'));
    return { stateDir, caDir, caCertPem, ekCertRsaDer, ekCertEccDer, persistedEks: persistEks };
  } finally {
    await tpm.stop();
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * Copies a provisioned TPM's state into `destDir` (made if missing): the same TPM, independent
 * from then on (swtpm writes its state back). The CA stays shared.
 */
export async function copyTpmState(src: ProvisionedTpm, destDir: string): Promise<ProvisionedTpm> {
  const dest = resolve(destDir);
  await mkdir(dest, { recursive: true });
  for (const name of await readdir(src.stateDir)) {
    // swtpm's lock file belongs to whichever swtpm runs on that dir.
    if (name !== '.lock') await copyFile(join(src.stateDir, name), join(dest, name));
  }
  return { ...src, stateDir: dest };
}

let goldenRoot: string | undefined;
const golden = new Map<string, Promise<ProvisionedTpm>>();
let goldenQueue: Promise<unknown> = Promise.resolve();

/**
 * Two fixed TPMs per process ('a' and 'b': two machines, same vendor CA), provisioned on first
 * use into a temp dir removed at exit. Never run swtpm on these: copy them with copyTpmState.
 */
export function goldenTpm(kind: 'a' | 'b', opts: { persistEks?: boolean } = {}): Promise<ProvisionedTpm> {
  const persistEks = opts.persistEks ?? false;
  const key = `${kind}${persistEks ? '-persisted' : ''}`;
  let tpm = golden.get(key);
  if (!tpm) {
    if (!goldenRoot) {
      const made = mkdtempSync(join(tmpdir(), 'fleet-golden-tpm-'));
      atExit(() => rmSync(made, { recursive: true, force: true }));
      goldenRoot = made;
    }
    const base = goldenRoot;
    // One at a time: provisioning keeps both cores busy, and the first one makes the shared CA.
    tpm = goldenQueue.then(() => provisionTpm(join(base, key), { persistEks, caDir: join(base, 'ca') }));
    goldenQueue = tpm.catch(() => undefined);
    golden.set(key, tpm);
  }
  return tpm;
}

/** Config for swtpm_setup and swtpm_localca that keeps the CA in `caDir` (not /var/lib). */
async function writeCaConfig(caDir: string): Promise<string> {
  await mkdir(caDir, { recursive: true });
  const setupConf = join(caDir, 'swtpm_setup.conf');
  if (existsSync(setupConf)) return setupConf;
  await writeFile(
    join(caDir, 'swtpm-localca.conf'),
    [
      `statedir = ${caDir}`,
      `signingkey = ${join(caDir, 'signkey.pem')}`,
      `issuercert = ${join(caDir, 'issuercert.pem')}`,
      `certserial = ${join(caDir, 'certserial')}`,
      '',
    ].join('\n'),
  );
  await writeFile(join(caDir, 'swtpm-localca.options'), '--platform-manufacturer fleet\n--platform-version 2.1\n--platform-model swtpm\n');
  await writeFile(
    setupConf,
    [
      'create_certs_tool = /usr/bin/swtpm_localca',
      `create_certs_tool_config = ${join(caDir, 'swtpm-localca.conf')}`,
      `create_certs_tool_options = ${join(caDir, 'swtpm-localca.options')}`,
      'active_pcr_banks = sha256',
      '',
    ].join('\n'),
  );
  return setupConf;
}

function b64urlToHex(s: string): string {
  return Buffer.from(s, 'base64url').toString('hex');
}

function run(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    execFile(cmd, args, { timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${cmd} ${args.join(' ')}: ${err.message}\n${stderr}${stdout}`));
      else resolvePromise();
    });
  });
}

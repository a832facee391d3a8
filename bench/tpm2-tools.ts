/**
 * Baseline: the standard single-EK attestation scripted with tpm2-tools against a running swtpm,
 * one process per step as an operator would write it. swtpm has no resource manager, so the
 * script flushes transient objects after each tool that leaves them loaded (a kernel or abrmd
 * resource manager would do that for free); those flushes are timed as their own steps.
 */
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { tpm2 } from '../test/swtpm/tpm2-tools.js';

export interface Tpm2ToolsAttestTiming {
  totalMs: number;
  /** Wall clock per step (one tool process each), in run order. */
  stepsMs: Record<string, number>;
}

/** Runs the attestation once in `workDir` (its files land there) and times every step. */
export async function tpm2ToolsAttestSteps(socketPath: string, workDir: string): Promise<Tpm2ToolsAttestTiming> {
  const stepsMs: Record<string, number> = {};
  const step = async (name: string, args: string[]): Promise<void> => {
    const start = performance.now();
    await tpm2(socketPath, args, { cwd: workDir });
    stepsMs[name] = performance.now() - start;
  };
  const secret = randomBytes(32);
  const nonce = randomBytes(16).toString('hex');
  await writeFile(`${workDir}/secret.bin`, secret);

  const start = performance.now();
  try {
    await step('createek', ['createek', '-G', 'rsa', '-c', 'ek.ctx', '-u', 'ek.pub']);
    await step('flush-after-createek', ['flushcontext', '-t']);
    await step('createak', [
      'createak',
      '-C',
      'ek.ctx',
      '-c',
      'ak.ctx',
      '-G',
      'ecc',
      '-g',
      'sha256',
      '-s',
      'ecdsa',
      '-u',
      'ak.pem',
      '-f',
      'pem',
      '-n',
      'ak.name',
    ]);
    await step('flush-after-createak', ['flushcontext', '-t']);
    const akName = (await readFile(`${workDir}/ak.name`)).toString('hex');
    await step('makecredential', ['makecredential', '-T', 'none', '-u', 'ek.pub', '-s', 'secret.bin', '-n', akName, '-o', 'cred.bin']);
    await step('startauthsession', ['startauthsession', '--policy-session', '-S', 'session.ctx']);
    await step('policysecret', ['policysecret', '-S', 'session.ctx', '-c', 'e']);
    await step('activatecredential', [
      'activatecredential',
      '-c',
      'ak.ctx',
      '-C',
      'ek.ctx',
      '-i',
      'cred.bin',
      '-o',
      'activated.bin',
      '-P',
      'session:session.ctx',
    ]);
    await step('flush-session', ['flushcontext', 'session.ctx']);
    await step('flush-after-activate', ['flushcontext', '-t']);
    if (!secret.equals(await readFile(`${workDir}/activated.bin`))) {
      throw new Error('tpm2_activatecredential returned a different secret');
    }
    // tpm2-tools 5.4 does not parse ranges like sha256:0-23; `all` is PCRs 0-23 on a PC TPM.
    await step('quote', ['quote', '-c', 'ak.ctx', '-l', 'sha256:all', '-q', nonce, '-g', 'sha256', '-m', 'quote.msg', '-s', 'quote.sig', '-o', 'quote.pcrs']);
    await step('flush-after-quote', ['flushcontext', '-t']);
    // Exits non-zero on a bad signature, nonce or PCR digest, which step() turns into a throw.
    await step('checkquote', ['checkquote', '-u', 'ak.pem', '-m', 'quote.msg', '-s', 'quote.sig', '-f', 'quote.pcrs', '-g', 'sha256', '-q', nonce]);
  } catch (err) {
    // Leave the shared TPM usable for whoever runs next, then report the real failure.
    // One flag per call: tpm2_flushcontext 5.4 fails on `-t -l -s` together.
    for (const what of ['-t', '-l', '-s']) await tpm2(socketPath, ['flushcontext', what]).catch(() => undefined);
    throw err;
  }
  return { totalMs: performance.now() - start, stepsMs };
}

/** Wall-clock ms of one full tpm2-tools attestation (see tpm2ToolsAttestSteps). */
export async function tpm2ToolsAttestMs(socketPath: string, workDir: string): Promise<number> {
  return (await tpm2ToolsAttestSteps(socketPath, workDir)).totalMs;
}

/**
 * Runs one tpm2-tools command against a running swtpm. tpm2-tss 3.2.1 (Debian 12) accepts the
 * TCTI `swtpm:path=<socket>` and opens `<socket>.ctrl` beside it for the control channel.
 */
import { execFile } from 'node:child_process';

export interface Tpm2Output {
  stdout: string;
  stderr: string;
  /** stdout as bytes, for commands that print binary (e.g. `nvread` without `-o`). */
  raw: Buffer;
}

export interface Tpm2Options {
  /** Working directory, so relative file arguments land in a test's own dir. */
  cwd?: string;
  /** Kills the tool after this long (default 30 s). */
  timeoutMs?: number;
}

/**
 * `tpm2(sock, ['createek', '-G', 'rsa', ...])` runs `tpm2 createek -G rsa ...` (the tpm2-tools
 * multiplexer; `tpm2_createek` is a link to it). Throws an Error with the tool's stderr when it
 * exits non-zero. `-T none` in `args` still wins over the TCTI set here.
 */
export function tpm2(socketPath: string, args: string[], opts: Tpm2Options = {}): Promise<Tpm2Output> {
  return new Promise((resolvePromise, reject) => {
    execFile(
      'tpm2',
      args,
      {
        cwd: opts.cwd,
        timeout: opts.timeoutMs ?? 30_000,
        encoding: 'buffer',
        maxBuffer: 16 * 1024 * 1024,
        env: { ...process.env, TPM2TOOLS_TCTI: `swtpm:path=${socketPath}` },
      },
      (err, stdout, stderr) => {
        const errText = stderr.toString('utf8');
        if (err) {
          const how = err.killed ? `killed (${err.signal ?? 'timeout'})` : typeof err.code === 'number' ? `exit ${err.code}` : err.message;
          reject(new Error(`tpm2 ${args.join(' ')}: ${how}\n${errText.trim()}`, { cause: err }));
          return;
        }
        resolvePromise({ stdout: stdout.toString('utf8'), stderr: errText, raw: stdout });
      },
    );
  });
}

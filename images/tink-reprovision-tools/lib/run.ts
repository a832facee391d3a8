import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { WHY } from '../lines/shared.js';

export interface RunResult {
  /** The exit code; 127 when the command is not there, 128 + n when signal n ended it. */
  code: number;
  stdout: string;
  stderr: string;
  /** stdout and stderr lines in the order they arrived, as a person at the console sees them. */
  lines: string[];
}

/** Runs a command to its end and captures what it says. Actions get one injected (tests stub tools). */
export type Runner = (cmd: string, args: readonly string[], opts?: { env?: Record<string, string> }) => Promise<RunResult>;

/** The runner on the real machine: `env` is the base environment (PATH decides which tools run). */
export function spawnRunner(env: NodeJS.ProcessEnv = process.env): Runner {
  return (cmd, args, opts) =>
    new Promise((resolve) => {
      const child = spawn(cmd, args, { env: { ...env, ...opts?.env }, stdio: ['ignore', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      const lines: string[] = [];
      const partial = { stdout: '', stderr: '' };
      const take = (which: 'stdout' | 'stderr', sink: Buffer[]) => (b: Buffer) => {
        sink.push(b);
        const parts = (partial[which] + b.toString('utf8')).split('\n');
        partial[which] = parts.pop()!;
        lines.push(...parts);
      };
      child.stdout.on('data', take('stdout', out));
      child.stderr.on('data', take('stderr', err));
      let spawnError: Error | undefined;
      child.on('error', (e) => (spawnError = e));
      child.on('close', (code, signal) => {
        for (const rest of [partial.stdout, partial.stderr]) if (rest) lines.push(rest);
        const stderr = Buffer.concat(err).toString('utf8');
        if (spawnError) {
          resolve({ code: 127, stdout: '', stderr: `${cmd}: ${spawnError.message}`, lines: [`${cmd}: ${spawnError.message}`] });
          return;
        }
        resolve({ code: code ?? 128 + (signal ? constants.signals[signal] : 0), stdout: Buffer.concat(out).toString('utf8'), stderr, lines });
      });
    });
}

/** The last non-empty line a failed command printed: the reason a person reads. */
export function lastLine(r: RunResult): string {
  return (
    r.lines
      .map((l) => l.trim())
      .filter(Boolean)
      .at(-1) ?? WHY.exitCode(String(r.code))
  );
}

/**
 * `fleet serve` as a child process for tests: started from the repo with tsx, ready once it says
 * where it listens, stopped by PID (SIGTERM, then SIGKILL after 5 s), and killed if the test
 * process dies first.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { atExit } from './swtpm/exit.js';
import { TSX } from './tsx.js';

const REPO = fileURLToPath(new URL('../', import.meta.url));

/** A fleet command running as a child process, once it said it is ready. */
export interface FleetProcess {
  pid: number;
  /** Its stdout lines: the audit, one JSON object a line. */
  stdout: string[];
  /** Everything it printed, stdout and stderr, in order of arrival. */
  lines: string[];
  /** Stops it; answers its exit code (null when it had to be killed). */
  stop(): Promise<number | null>;
  /** SIGKILL, as a crash or the OOM killer ends it: nothing flushed, nothing released. Resolves once it is gone. */
  kill(): Promise<void>;
}

export interface FleetServe extends FleetProcess {
  url: string;
}

export interface FleetServeOptions {
  env?: NodeJS.ProcessEnv;
  startTimeoutMs?: number;
  /** A built fleet.mjs to run instead of the sources (the bench measures what ships). */
  bundle?: string;
}

export async function startFleetServe(args: string[], opts: FleetServeOptions = {}): Promise<FleetServe> {
  const { said, ...rest } = await startFleet('serve', args, /listening on (\S+)/, opts);
  return { url: said, ...rest };
}

/**
 * `fleet COMMAND ARGS` as a child process: ready once a line on stderr matches `ready`, whose
 * first group it answers as `said`.
 */
export async function startFleet(command: string, args: string[], ready: RegExp, opts: FleetServeOptions = {}): Promise<FleetProcess & { said: string }> {
  const [cmd, ...entry] = opts.bundle ? [process.execPath, opts.bundle] : [...TSX, 'cli/fleet.ts'];
  const child = spawn(cmd!, [...entry, command, ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'], env: opts.env ?? process.env });
  const unregister = atExit(() => child.kill('SIGKILL'));
  // A pipe reset as fleetd dies is no failure of the test: its exit code is what stop() answers.
  for (const s of [child.stdout, child.stderr]) s.on('error', () => undefined);
  // 'close', not 'exit': every line it printed has been read by then.
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const stdout: string[] = [];
  const lines: string[] = [];
  createInterface({ input: child.stdout })
    .on('error', () => undefined)
    .on('line', (l) => {
      stdout.push(l);
      lines.push(l);
    });
  const stop = async (): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const hard = setTimeout(() => child.kill('SIGKILL'), 5_000);
    const code = await closed;
    clearTimeout(hard);
    unregister();
    return code;
  };
  try {
    const said = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stderr })
        .on('error', () => undefined)
        .on('line', (l) => {
          lines.push(l);
          const m = ready.exec(l);
          if (m) resolve(m[1]!);
        });
      void closed.then((code) => reject(new Error(`fleet ${command} exited ${code}:\n${lines.join('\n')}`)));
      setTimeout(
        () => reject(new Error(`fleet ${command} was not ready within ${opts.startTimeoutMs ?? 30_000} ms:\n${lines.join('\n')}`)),
        opts.startTimeoutMs ?? 30_000,
      ).unref();
    });
    const kill = async (): Promise<void> => {
      child.kill('SIGKILL');
      await closed;
      unregister();
    };
    return { said, pid: child.pid!, stdout, lines, stop, kill };
  } catch (err) {
    await stop();
    throw err;
  }
}

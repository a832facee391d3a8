/**
 * Runs swtpm as a child process on unix sockets in a fresh temp dir (no port races), for tests,
 * the demo and benchmarks. swtpm serves one client connection at a time and has no resource
 * manager: whoever talks to it must flush what they load.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { atExit } from './exit.js';

export interface StartSwtpmOptions {
  /** How long to wait for the sockets to accept (default 10 s). */
  startTimeoutMs?: number;
  /** How long stop() waits after SIGTERM before SIGKILL (default 5 s). */
  stopTimeoutMs?: number;
}

export interface RunningSwtpm {
  /** The TPM command socket (raw TPM command bytes, no framing). */
  socketPath: string;
  /** The control socket; tpm2-tools' swtpm TCTI derives it as `<socketPath>.ctrl`. */
  ctrlPath: string;
  pid: number;
  stateDir: string;
  /** SIGTERM (swtpm saves its state), SIGKILL after the timeout, then removes the socket dir. */
  stop(): Promise<void>;
}

export async function startSwtpm(stateDir: string, opts: StartSwtpmOptions = {}): Promise<RunningSwtpm> {
  const startTimeoutMs = opts.startTimeoutMs ?? 10_000;
  const stopTimeoutMs = opts.stopTimeoutMs ?? 5_000;
  const absState = resolve(stateDir);
  const dir = mkdtempSync(join(tmpdir(), 'swtpm-'));
  const socketPath = join(dir, 'tpm.sock');
  const ctrlPath = `${socketPath}.ctrl`;
  const logPath = join(dir, 'swtpm.log');
  // stderr goes to a file, not a pipe, so an unref'd child holds nothing open in this process.
  const logFd = openSync(logPath, 'w');
  let child: ChildProcess;
  try {
    child = spawn(
      'swtpm',
      [
        'socket',
        '--tpm2',
        '--tpmstate',
        `dir=${absState}`,
        '--server',
        `type=unixio,path=${socketPath}`,
        '--ctrl',
        `type=unixio,path=${ctrlPath}`,
        '--flags',
        'not-need-init,startup-clear',
      ],
      { stdio: ['ignore', 'ignore', logFd] },
    );
  } finally {
    closeSync(logFd);
  }
  // An exiting process must never leave swtpm behind.
  const unregister = atExit(() => {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  // A forgotten stop() must not keep a script alive; the atExit cleanup still kills the child.
  child.unref();

  let spawnError: Error | undefined;
  // A failed spawn emits 'error' and no 'exit': either way the process is gone.
  const exited = new Promise<void>((res) => {
    child.once('exit', () => res());
    child.once('error', (err) => {
      spawnError = err;
      res();
    });
  });

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null && spawnError === undefined) {
        child.kill('SIGTERM');
        const hard = setTimeout(() => child.kill('SIGKILL'), stopTimeoutMs);
        await exited;
        clearTimeout(hard);
      }
      unregister();
      rmSync(dir, { recursive: true, force: true });
    })();
    return stopping;
  };

  const failure = (why: string): Error => {
    let log = '';
    try {
      log = readFileSync(logPath, 'utf8').trim();
    } catch {
      // The dir may already be gone; the reason alone still says what failed.
    }
    return new Error(`swtpm on ${absState}: ${why}${log ? `\n${log}` : ''}`);
  };

  const deadline = Date.now() + startTimeoutMs;
  for (;;) {
    const outcome = await Promise.race([
      Promise.all([accepts(socketPath), accepts(ctrlPath)]).then(([a, b]) => (a && b ? 'ready' : 'retry')),
      exited.then(() => 'exited' as const),
    ]);
    if (outcome === 'ready') break;
    if (outcome === 'exited') {
      const err = failure(
        spawnError ? `could not run swtpm: ${spawnError.message}` : `exited during start (code ${child.exitCode}, signal ${child.signalCode})`,
      );
      await stop();
      throw err;
    }
    if (Date.now() > deadline) {
      const err = failure(`sockets did not accept within ${startTimeoutMs} ms`);
      await stop();
      throw err;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  // Sockets that accept mean the spawn succeeded, so the pid is set.
  return { socketPath, ctrlPath, pid: child.pid!, stateDir: absState, stop };
}

/** True once a unix socket accepts a connection (closed at once; swtpm then serves the next). */
function accepts(path: string): Promise<boolean> {
  return new Promise((res) => {
    const sock = createConnection(path);
    sock.once('connect', () => {
      sock.destroy();
      res(true);
    });
    sock.once('error', () => {
      sock.destroy();
      res(false);
    });
  });
}

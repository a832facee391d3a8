/**
 * Real syslog senders for tests: util-linux `logger` over UDP, and busybox `syslogd -R`, which
 * forwards what `busybox logger` writes to /dev/log. busybox syslogd binds /dev/log itself, so it
 * runs in its own mount namespace (tmpfs over /dev) and pid namespace (everything in it dies with
 * the shell, which dies with this process).
 */
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';

/** `logger -n HOST -P PORT -d ARGS... MESSAGE`. */
export async function logger(host: string, port: number, args: string[], message: string): Promise<void> {
  await promisify(execFile)('logger', ['-n', host, '-P', String(port), '-d', ...args, message]);
}

/** What the busybox run logs, in order (the multi-line one gives one message per line). */
export const BUSYBOX_LINES = [
  { program: 'tink-worker', severity: 4, facility: 19, message: 'action wipe-disk failed' },
  { program: 'root', severity: 5, facility: 1, message: 'no tag given' },
  { program: 'multi', severity: 5, facility: 1, message: 'line1' },
  { program: 'multi', severity: 5, facility: 1, message: 'line2' },
];

// $1: the receiver's port. Waits for /dev/log, logs, then holds syslogd until stdin closes, since
// it forwards a line some time after logger returns.
const BUSYBOX_SCRIPT = `set -e
mount -t tmpfs -o size=1m tmpfs /dev
mknod -m 666 /dev/null c 1 3
busybox syslogd -n -R "127.0.0.1:$1" &
i=0; while [ ! -S /dev/log ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
busybox logger -t tink-worker -p local3.warn "action wipe-disk failed"
busybox logger "no tag given"
printf 'line1\\nline2\\n' | busybox logger -t multi
read -r _ || true
`;

/**
 * Runs the busybox script against UDP `port`; `until` decides when syslogd has forwarded
 * everything (it is then stopped). Rejects if the script fails.
 */
export async function busyboxRemote(port: number, until: () => Promise<void>): Promise<void> {
  const child = spawn(
    'setpriv',
    ['--pdeathsig', 'KILL', 'unshare', '--mount', '--pid', '--fork', '--kill-child', 'sh', '-c', BUSYBOX_SCRIPT, 'sh', String(port)],
    {
      stdio: ['pipe', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`busybox script: exit ${code ?? signal}: ${stderr}`))));
  });
  try {
    await Promise.race([until(), exited]);
  } finally {
    child.stdin.end();
    const hard = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited.catch(() => undefined);
    clearTimeout(hard);
  }
  await exited;
}

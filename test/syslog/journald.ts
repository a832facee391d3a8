/**
 * A private systemd-journald for tests and the bench (DESIGN.md §7): it runs under `unshare -m`
 * with tmpfs over /run/systemd, /run/log and /var/log/journal, so it never touches the host's, and
 * the host reaches its socket and its files through /proc/<pid>/root. Its config (bound over
 * /etc/systemd/journald.conf inside the namespace) keeps everything in memory and forwards nothing:
 * no rate limit, no kernel log, no wall messages for emergency-level test lines.
 */
import { execFile, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { atExit } from '../swtpm/exit.js';

const JOURNALD = '/lib/systemd/systemd-journald';

const CONFIG = `[Journal]
Storage=volatile
RuntimeMaxUse=768M
RateLimitIntervalSec=0
ReadKMsg=no
ForwardToSyslog=no
ForwardToKMsg=no
ForwardToConsole=no
ForwardToWall=no
`;

// $1 is the config. exec: the pid that unshare started is journald's own.
const SCRIPT = `set -e
mount -t tmpfs -o mode=0755,size=16m tmpfs /run/systemd
mount -t tmpfs -o mode=0755,size=1g tmpfs /run/log
if [ -d /var/log/journal ]; then mount -t tmpfs -o mode=0755,size=16m tmpfs /var/log/journal; fi
printf '%s' "$1" > /run/systemd/fleet-journald.conf
mount --bind /run/systemd/fleet-journald.conf /etc/systemd/journald.conf
exec ${JOURNALD}`;

export interface PrivateJournald {
  pid: number;
  /** The native protocol socket, reachable from this mount namespace. */
  socketPath: string;
  /** `journalctl -o json` entries matching `matches` (`FIELD=value`). */
  entries(...matches: string[]): Promise<Array<Record<string, unknown>>>;
  /** The MESSAGE lines of the entries matching `matches` (`journalctl -o cat`: a multi-line MESSAGE gives several). */
  messages(...matches: string[]): Promise<string[]>;
  /** SIGTERM, SIGKILL after 5 s; the tmpfs mounts go with the namespace. */
  stop(): Promise<void>;
}

export async function startPrivateJournald(startTimeoutMs = 10_000): Promise<PrivateJournald> {
  const logDir = mkdtempSync(join(tmpdir(), 'fleet-journald-'));
  const logPath = join(logDir, 'journald.log');
  const logFd = openSync(logPath, 'w');
  // --pdeathsig: journald dies with this process even if it is killed before any cleanup runs.
  const child = spawn('setpriv', ['--pdeathsig', 'KILL', 'unshare', '--mount', '--propagation', 'private', 'sh', '-c', SCRIPT, 'sh', CONFIG], {
    stdio: ['ignore', logFd, logFd],
  });
  closeSync(logFd);
  const unregister = atExit(() => {
    child.kill('SIGKILL');
    rmSync(logDir, { recursive: true, force: true });
  });
  child.unref();
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const hard = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(hard);
      }
      unregister();
      rmSync(logDir, { recursive: true, force: true });
    })();
    return stopping;
  };

  const pid = child.pid;
  const root = `/proc/${pid}/root`;
  const socketPath = `${root}/run/systemd/journal/socket`;
  const deadline = Date.now() + startTimeoutMs;
  // Only once the process is journald are the mounts in place: before, the path is the host's.
  while (!(pid !== undefined && isJournald(pid) && existsSync(socketPath))) {
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      const log = readFileSync(logPath, 'utf8').trim();
      await stop();
      throw new Error(`private systemd-journald did not start: ${log || 'no output'}`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }

  const journalctl = async (args: string[]): Promise<string> =>
    (await promisify(execFile)('journalctl', ['--root', root, '--no-pager', '-q', ...args], { maxBuffer: 1 << 30 })).stdout;
  return {
    pid: pid!,
    socketPath,
    entries: async (...matches) =>
      (await journalctl(['-o', 'json', ...matches]))
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
    messages: async (...matches) => (await journalctl(['-o', 'cat', ...matches])).split('\n').slice(0, -1),
    stop,
  };
}

function isJournald(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'systemd-journal';
  } catch {
    return false;
  }
}

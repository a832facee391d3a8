/**
 * One boot of an e2e machine: swtpm on the machine's TPM state, then QEMU, both children of this
 * process, killed by PID when the boot ends, at its hard timeout, or when this process dies.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { atExit } from '../swtpm/exit.js';
import { waitUntil } from '../syslog/wait.js';
import { QEMU } from './host-tools.js';
import { Qmp, type StopReason } from './qmp.js';
import { qemuArgs, type MachineSpec } from './qemu-args.js';

export interface BootResult {
  /** The serial console, line by line. */
  lines: string[];
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  seconds: number;
  /** Why QEMU stopped, by its SHUTDOWN event: a reset (a reboot), a power-off, a QMP quit; null when killed. */
  stopReason: StopReason | null;
}

export interface RunningBoot {
  lines: string[];
  done: Promise<BootResult>;
  /** Resolves with the first console line (so far or to come) that matches. */
  waitForLine(re: RegExp): Promise<string>;
  /** Pulls the plug: SIGKILL to QEMU, nothing flushed. */
  powerLoss(): void;
  /** A BMC's hard power-off: QMP quit. Resolves once the machine is off. */
  powerOff(): Promise<BootResult>;
}

function startChild(cmd: string, args: string[]): { child: ChildProcess; unregister: () => void } {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  // A pipe reset as the child dies is no failure of the test: its exit is what the boot reports
  // (readline passes its input's errors on, so its readers ignore them too).
  for (const s of [child.stdout!, child.stderr!]) s.on('error', () => undefined);
  const unregister = atExit(() => child.kill('SIGKILL'));
  return { child, unregister };
}

const exited = (c: ChildProcess) => new Promise<void>((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', () => r())));

/** swtpm as QEMU's TPM emulator backend: QEMU initialises it over the control socket. */
async function startTpm(stateDir: string, socket: string, log: string): Promise<{ child: ChildProcess; stop(): Promise<void> }> {
  const { child, unregister } = startChild('swtpm', [
    'socket',
    '--tpm2',
    '--tpmstate',
    `dir=${stateDir}`,
    '--ctrl',
    `type=unixio,path=${socket}`,
    '--log',
    `file=${log},level=1`,
  ]);
  const gone = exited(child);
  await waitUntil(
    () => existsSync(socket) || child.exitCode !== null,
    10_000,
    () => `swtpm made no socket ${socket}`,
  );
  if (child.exitCode !== null) throw new Error(`swtpm on ${stateDir} exited ${child.exitCode}; see ${log}`);
  return {
    child,
    async stop() {
      // SIGTERM: swtpm writes its state back (the next boot is the same TPM).
      child.kill('SIGTERM');
      const hard = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await gone;
      clearTimeout(hard);
      unregister();
    },
  };
}

export async function startBoot(
  spec: Omit<MachineSpec, 'tpmSocket' | 'qmpSocket'> & { tpmState: string; workDir: string; timeoutMs: number },
): Promise<RunningBoot> {
  const socket = join(spec.workDir, 'swtpm.ctrl');
  const tpm = await startTpm(spec.tpmState, socket, join(spec.workDir, 'swtpm.log'));
  const started = Date.now();
  const qmpSocket = join(spec.workDir, 'qmp.sock');
  const { child, unregister } = startChild(QEMU, qemuArgs({ ...spec, tpmSocket: socket, qmpSocket }));
  const qmp = Qmp.connect(qmpSocket, () => child.exitCode === null && child.signalCode === null).catch(() => null);
  // 'close', not 'exit': the console's last lines may still be in the pipe when QEMU exits.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const lines: string[] = [];
  const waiters: Array<{ re: RegExp; resolve: (l: string) => void }> = [];
  // The serial console mixes \r\n and firmware escape codes: match markers anywhere in a line.
  createInterface({ input: child.stdout! })
    .on('error', () => undefined)
    .on('line', (raw) => {
      const line = raw.replace(/\r/g, '');
      lines.push(line);
      for (const w of waiters.splice(0)) w.re.test(line) ? w.resolve(line) : waiters.push(w);
    });
  createInterface({ input: child.stderr! })
    .on('error', () => undefined)
    .on('line', (l) => lines.push(`qemu: ${l}`));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, spec.timeoutMs);
  const done = closed.then(async () => {
    clearTimeout(timer);
    unregister();
    await tpm.stop();
    const q = await qmp;
    q?.close();
    return { lines, code: child.exitCode, signal: child.signalCode, timedOut, seconds: (Date.now() - started) / 1000, stopReason: q?.stopReason ?? null };
  });
  return {
    lines,
    done,
    waitForLine: (re) => {
      const seen = lines.find((l) => re.test(l));
      if (seen) return Promise.resolve(seen);
      return Promise.race([
        new Promise<string>((resolve) => waiters.push({ re, resolve })),
        done.then((r) => Promise.reject(new Error(`the boot ended (${r.timedOut ? 'timed out' : `exit ${r.code}`}) before a line matched ${re}`))),
      ]);
    },
    powerLoss: () => void child.kill('SIGKILL'),
    powerOff: async () => {
      const q = await qmp;
      if (q) await q.execute('quit');
      else child.kill('SIGKILL');
      return done;
    },
  };
}

/** The console lines worth reading when a check fails: the guest's own steps, not the kernel's. */
export function keyConsoleLines(lines: readonly string[]): string {
  const key =
    /(init:|guest:|agent:|clock:|securityfs:|nic:|lldp:|attest:|install|wipe|image-to-disk:|next-boot:|reboot:|eventlog:|tink-agent:|first-boot:|panic|Error|error|qemu:)/;
  return lines.filter((l) => key.test(l)).join('\n');
}

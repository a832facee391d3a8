/**
 * A daemon a test runs (chronyd, dockerd, docker-registry, etcd, crd-apiserver): its own temp dir,
 * its output kept for the failure message, ready once `ready` says so, stopped by PID (SIGTERM,
 * then SIGKILL), and killed with its dir removed if the test process dies first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { createSocket } from 'node:dgram';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { atExit } from './swtpm/exit.js';

/** A loopback port nothing listens on now (TCP, or UDP). */
export function freePort(kind: 'tcp' | 'udp' = 'tcp'): Promise<number> {
  return new Promise((resolve, reject) => {
    if (kind === 'udp') {
      const s = createSocket('udp4');
      s.once('error', reject);
      s.bind(0, '127.0.0.1', () => {
        const { port } = s.address();
        s.close(() => resolve(port));
      });
      return;
    }
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export class Daemons {
  /** Where the daemons keep their files; removed at stop. */
  readonly dir: string;
  private readonly children: ChildProcess[] = [];
  private readonly output: string[] = [];
  private readonly unregister: () => void;

  constructor(name: string) {
    const dir = (this.dir = mkdtempSync(join(tmpdir(), `fleet-${name}-`)));
    this.unregister = atExit(() => {
      for (const c of this.children) c.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    });
  }

  /** What the daemons printed, for a failure message. */
  get log(): string {
    return this.output.join('').slice(-4000);
  }

  spawn(cmd: string, args: string[]): ChildProcess {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (b: Buffer) => this.output.push(b.toString()));
    child.stderr!.on('data', (b: Buffer) => this.output.push(b.toString()));
    // A pipe reset as the daemon dies is no failure of the test: `until` and `stop` see its exit.
    for (const s of [child.stdout!, child.stderr!]) s.on('error', () => undefined);
    this.children.push(child);
    return child;
  }

  /** Polls `ready` every 100 ms until it holds; fails with their output when one exits or the deadline passes. */
  async until(what: string, ready: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (await ready().catch(() => false)) return;
      const gone = this.children.find((c) => c.exitCode !== null || c.signalCode !== null);
      if (gone || Date.now() > deadline) {
        await this.stop();
        throw new Error(`${what} ${gone ? `exited (${gone.exitCode ?? gone.signalCode})` : `was not ready within ${timeoutMs / 1000} s`}:\n${this.log}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async stop(): Promise<void> {
    for (const c of [...this.children].reverse()) {
      if (c.exitCode !== null || c.signalCode !== null) continue;
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      const hard = setTimeout(() => c.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(hard);
    }
    this.unregister();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

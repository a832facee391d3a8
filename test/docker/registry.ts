/**
 * Debian's docker-registry (the Docker distribution registry) on a loopback port of its own, its
 * storage in a temp dir: what HookOS pulls the installer and the tools image from. A real engine
 * takes plain HTTP from a registry on 127.0.0.0/8. Stopped by PID.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { atExit } from '../swtpm/exit.js';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export class Registry {
  private constructor(
    /** `127.0.0.1:<port>`: the host part of image names it holds. */
    readonly host: string,
    private readonly child: ChildProcess,
    private readonly dir: string,
    private readonly unregister: () => void,
  ) {}

  static async start(): Promise<Registry> {
    const dir = mkdtempSync(join(tmpdir(), 'fleet-registry-'));
    const port = await freePort();
    writeFileSync(join(dir, 'config.yml'), `version: 0.1\nlog: { level: error }\nstorage: { filesystem: { rootdirectory: ${dir}/data } }\nhttp: { addr: 127.0.0.1:${port} }\n`);
    const child = spawn('docker-registry', ['serve', join(dir, 'config.yml')], { stdio: 'ignore' });
    const unregister = atExit(() => {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    });
    const registry = new Registry(`127.0.0.1:${port}`, child, dir, unregister);
    for (let i = 0; ; i++) {
      const ok = await fetch(`http://127.0.0.1:${port}/v2/`).then((r) => r.ok, () => false);
      if (ok) return registry;
      if (child.exitCode !== null || i > 100) {
        await registry.stop();
        throw new Error('docker-registry did not start');
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((r) => this.child.once('exit', r));
      this.child.kill('SIGTERM');
      await exited;
    }
    this.unregister();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

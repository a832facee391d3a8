/**
 * A private Docker engine for tests: Debian's dockerd on its own socket, data root and containerd
 * namespace (nothing of a system Docker is touched), with no bridge and no iptables (this
 * sandbox has neither). Images come from this machine's own files (`docker import`), since no
 * registry outside loopback can be reached. Stopped by PID; killed if the test process dies.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { atExit } from '../swtpm/exit.js';

const run = promisify(execFile);

export class DockerEngine {
  private constructor(
    readonly socket: string,
    private readonly child: ChildProcess,
    private readonly dir: string,
    private readonly unregister: () => void,
  ) {}

  static async start(): Promise<DockerEngine> {
    const dir = mkdtempSync(join(tmpdir(), 'fleet-dockerd-'));
    const socket = join(dir, 'docker.sock');
    const ns = `fleet-test-${process.pid}`;
    const log: string[] = [];
    const child = spawn('dockerd', [
      '--data-root', join(dir, 'data'), '--exec-root', join(dir, 'exec'), '--pidfile', join(dir, 'dockerd.pid'), '-H', `unix://${socket}`,
      '--bridge=none', '--iptables=false', '--ip-forward=false', '--ip-masq=false', '--containerd-namespace', ns, '--containerd-plugins-namespace', `${ns}-plugins`,
    ], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (b: Buffer) => log.push(b.toString()));
    child.stderr!.on('data', (b: Buffer) => log.push(b.toString()));
    const unregister = atExit(() => {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    });
    const engine = new DockerEngine(socket, child, dir, unregister);
    for (let i = 0; ; i++) {
      try {
        await engine.docker(['version', '--format', '{{.Server.Version}}']);
        return engine;
      } catch (err) {
        if (child.exitCode !== null || i > 150) {
          await engine.stop();
          throw new Error(`dockerd did not start: ${String(err)}\n${log.join('').slice(-2000)}`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /** `docker -H <this engine> ARGS`; answers stdout. */
  async docker(args: string[]): Promise<string> {
    return (await run('docker', ['-H', `unix://${this.socket}`, ...args], { timeout: 120_000 })).stdout;
  }

  /**
   * An image of this machine's own programs and the libraries they load (ldd), imported as `name`:
   * what can be had without a registry to pull a base image from.
   */
  async importPrograms(name: string, programs: string[]): Promise<void> {
    const root = join(this.dir, `root-${name.replace(/\W/g, '-')}`);
    const files = new Set<string>();
    for (const p of programs) {
      files.add(p);
      const { stdout } = await run('ldd', [p]).catch(() => ({ stdout: '' }));
      for (const m of stdout.matchAll(/(\/\S+)/g)) files.add(m[1]!);
    }
    for (const f of files) {
      mkdirSync(join(root, dirname(f)), { recursive: true });
      copyFileSync(f, join(root, f));
    }
    await run('sh', ['-c', 'tar -C "$1" -c . | docker -H "unix://$2" import - "$3"', 'sh', root, this.socket, name], { timeout: 120_000 });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((r) => this.child.once('exit', r));
      this.child.kill('SIGTERM');
      const hard = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(hard);
    }
    this.unregister();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

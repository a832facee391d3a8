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
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { atExit } from '../swtpm/exit.js';

const run = promisify(execFile);
/** runc, less the one capability this sandbox cannot grant a privileged container. */
const RUNC = fileURLToPath(new URL('./runc-without-sys-resource.sh', import.meta.url));

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
      '--add-runtime', `fleet-runc=${RUNC}`, '--default-runtime', 'fleet-runc',
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
   * An image of this machine's own programs and the libraries they load (ldd), and of `files`
   * (path in the image → a file of this machine), imported as `name`: what can be had without a
   * registry to pull a base image from.
   */
  async importPrograms(name: string, programs: string[], files: Record<string, string> = {}, changes: string[] = []): Promise<void> {
    const root = join(this.dir, `root-${name.replace(/\W/g, '-')}`);
    const needed = new Set<string>();
    for (const p of programs) {
      needed.add(p);
      const { stdout } = await run('ldd', [p]).catch(() => ({ stdout: '' }));
      for (const m of stdout.matchAll(/(\/\S+)/g)) needed.add(m[1]!);
    }
    const copies: Array<[string, string]> = [...[...needed].map((f): [string, string] => [f, f]), ...Object.entries(files).map(([to, from]): [string, string] => [from, to])];
    for (const [from, to] of copies) {
      mkdirSync(join(root, dirname(to)), { recursive: true });
      copyFileSync(from, join(root, to));
    }
    const change = changes.flatMap((c) => ['--change', c]);
    await run('sh', ['-c', 'r=$1 s=$2; shift 2; tar -C "$r" -c . | docker -H "unix://$s" import "$@"', 'sh', root, this.socket, ...change, '-', name], { timeout: 300_000, maxBuffer: 16 << 20 });
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

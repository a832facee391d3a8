/**
 * A private Docker engine for tests: Debian's dockerd on its own socket, data root and containerd
 * namespace (nothing of a system Docker is touched), with no bridge and no iptables (this
 * sandbox has neither). Images come from this machine's own files (`docker import`), since no
 * registry outside loopback can be reached.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Daemons } from '../daemon.js';

const run = promisify(execFile);
/** runc, less the one capability this sandbox cannot grant a privileged container. */
const RUNC = fileURLToPath(new URL('./runc-without-sys-resource.sh', import.meta.url));

export class DockerEngine {
  private constructor(
    readonly socket: string,
    private readonly daemons: Daemons,
  ) {}

  static async start(): Promise<DockerEngine> {
    const d = new Daemons('dockerd');
    const socket = join(d.dir, 'docker.sock');
    const ns = `fleet-test-${process.pid}`;
    d.spawn('dockerd', [
      '--data-root',
      join(d.dir, 'data'),
      '--exec-root',
      join(d.dir, 'exec'),
      '--pidfile',
      join(d.dir, 'dockerd.pid'),
      '-H',
      `unix://${socket}`,
      '--bridge=none',
      '--iptables=false',
      '--ip-forward=false',
      '--ip-masq=false',
      '--containerd-namespace',
      ns,
      '--containerd-plugins-namespace',
      `${ns}-plugins`,
      '--add-runtime',
      `fleet-runc=${RUNC}`,
      '--default-runtime',
      'fleet-runc',
    ]);
    const engine = new DockerEngine(socket, d);
    await d.until('dockerd', async () => !!(await engine.docker(['version', '--format', '{{.Server.Version}}'])));
    return engine;
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
    const root = join(this.daemons.dir, `root-${name.replace(/\W/g, '-')}`);
    const needed = new Set<string>();
    for (const p of programs) {
      needed.add(p);
      const { stdout } = await run('ldd', [p]).catch(() => ({ stdout: '' }));
      for (const m of stdout.matchAll(/(\/\S+)/g)) needed.add(m[1]!);
    }
    const copies: Array<[string, string]> = [
      ...[...needed].map((f): [string, string] => [f, f]),
      ...Object.entries(files).map(([to, from]): [string, string] => [from, to]),
    ];
    for (const [from, to] of copies) {
      mkdirSync(join(root, dirname(to)), { recursive: true });
      copyFileSync(from, join(root, to));
    }
    const change = changes.flatMap((c) => ['--change', c]);
    await run('sh', ['-c', 'r=$1 s=$2; shift 2; tar -C "$r" -c . | docker -H "unix://$s" import "$@"', 'sh', root, this.socket, ...change, '-', name], {
      timeout: 300_000,
      maxBuffer: 16 << 20,
    });
  }

  /** `name`: image `from` with `changes` (Dockerfile instructions such as ENV), committed from a container never started. */
  async derive(from: string, name: string, changes: string[]): Promise<void> {
    const id = (await this.docker(['container', 'create', from])).trim();
    try {
      await this.docker(['commit', ...changes.flatMap((c) => ['--change', c]), id, name]);
    } finally {
      await this.docker(['container', 'rm', id]);
    }
  }

  /**
   * The image of every container this engine created since `since` (ms since the epoch), oldest
   * first, from its event log: what it ran, even of containers `--rm` has removed.
   */
  async containersCreated(since: number): Promise<string[]> {
    const secs = (ms: number) => (ms / 1000).toFixed(3);
    const out = await this.docker([
      'events',
      '--since',
      secs(since),
      '--until',
      secs(Date.now()),
      '--filter',
      'type=container',
      '--filter',
      'event=create',
      '--format',
      '{{.From}}',
    ]);
    return out.split('\n').filter(Boolean);
  }

  stop(): Promise<void> {
    return this.daemons.stop();
  }
}

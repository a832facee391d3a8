import { randomBytes, randomUUID } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ActionName } from '../../images/tink-reprovision-tools/actions.js';
import { perform, type Action } from '../../images/tink-reprovision-tools/lib/action.js';
import { blockDeviceNumber, type ActionIO } from '../../images/tink-reprovision-tools/lib/io.js';
import { spawnRunner } from '../../images/tink-reprovision-tools/lib/run.js';
import { writeAttestedMarker } from '../../shared/worker/marker.js';

const STUBS = fileURLToPath(new URL('./stubs/', import.meta.url));

export interface Call {
  cmd: string;
  args: readonly string[];
}

/**
 * One machine for the actions: a fake sysfs and /proc (with this boot's id), its own /tmp/fleet, a
 * bin directory whose `efibootmgr` is the test double in ./stubs (this host has no EFI variables to
 * write), the real `docker` CLI, the device numbers of disk files (a real block device answers for
 * itself), and every command the actions ran.
 */
export class Rig {
  readonly calls: Call[] = [];
  readonly lines: string[] = [];
  /** Every wait an action asked for (ms); the rig does not wait. */
  readonly slept: number[] = [];
  /** Disk files standing in for block devices in the unit tests: path → "major:minor". */
  readonly devs = new Map<string, string>();
  readonly code = randomBytes(32).toString('base64url');
  bootId: string = randomUUID();
  /** Whether the machine has EFI variables (the stub efibootmgr's NVRAM file). */
  efi = true;
  /** Whether loop devices count as disks, for the tests whose disks are loop devices. */
  allowLoop = false;
  /**
   * The socket of the Docker engine `docker` talks to (test/docker/engine.ts). Without one, a socket
   * nothing listens on: the CLI fails as with HookOS's engine down, and never reaches this host's Docker.
   */
  dockerSocket: string | undefined;

  private constructor(readonly dir: string) {}

  static async create(opts: { allowLoop?: boolean; dockerSocket?: string | undefined } = {}): Promise<Rig> {
    const rig = new Rig(await mkdtemp(join(tmpdir(), 'fleet-actions-')));
    rig.allowLoop = opts.allowLoop ?? false;
    rig.dockerSocket = opts.dockerSocket;
    for (const d of ['sys/block', 'proc/sys/kernel/random', 'fleet', 'bin', 'tmp']) await mkdir(join(rig.dir, d), { recursive: true });
    await rig.setBootId(rig.bootId);
    await writeFile(join(rig.proc, 'meminfo'), 'MemTotal:       24684096 kB\nMemAvailable:   20000000 kB\n');
    await writeFile(join(rig.proc, 'sysrq-trigger'), '');
    await writeFile(join(rig.bin, 'efibootmgr'), `#!/bin/sh\nexec "${process.execPath}" "${STUBS}efibootmgr.mjs" "$@"\n`);
    await chmod(join(rig.bin, 'efibootmgr'), 0o755);
    return rig;
  }

  get sys() {
    return join(this.dir, 'sys');
  }
  get proc() {
    return join(this.dir, 'proc');
  }
  get fleet() {
    return join(this.dir, 'fleet');
  }
  get bin() {
    return join(this.dir, 'bin');
  }
  /** The stub efibootmgr's NVRAM. */
  get efivars() {
    return join(this.dir, 'efivars.json');
  }

  async setBootId(id: string): Promise<void> {
    this.bootId = id;
    await writeFile(join(this.proc, 'sys/kernel/random/boot_id'), `${id}\n`);
  }

  /** What the agent leaves after a PASSED attestation with a provision waiting. */
  async attest(opts: { bootId?: string; code?: boolean } = {}): Promise<void> {
    await writeAttestedMarker(this.fleet, { bootId: opts.bootId ?? this.bootId, at: new Date().toISOString() });
    if (opts.code !== false) await writeFile(join(this.fleet, 'install_code'), this.code, { mode: 0o600 });
  }

  io(): ActionIO {
    const run = spawnRunner({
      ...process.env,
      PATH: `${this.bin}:${process.env.PATH}`,
      DOCKER_HOST: `unix://${this.dockerSocket ?? join(this.dir, 'docker.sock')}`,
      ...(this.efi ? { FAKE_EFIVARS: this.efivars } : {}),
    });
    return {
      say: (l) => void this.lines.push(l),
      sysRoot: this.sys,
      procRoot: this.proc,
      fleetDir: this.fleet,
      tmpDir: join(this.dir, 'tmp'),
      run: (cmd, args, opts) => {
        this.calls.push({ cmd, args });
        return run(cmd, args, opts);
      },
      deviceNumber: async (p) => this.devs.get(p) ?? blockDeviceNumber(p),
      allowLoop: this.allowLoop,
      sleep: async (ms) => void this.slept.push(ms),
    };
  }

  /** Runs an action as its bundle would, and returns its exit code and only this run's lines. */
  async perform<A extends ActionName>(name: A, action: Action<A>, env: Record<string, string>): Promise<{ code: number; lines: string[] }> {
    const from = this.lines.length;
    const code = await perform(name, action, env, this.io());
    return { code, lines: this.lines.slice(from) };
  }

  /** Whether any command that writes to a disk ran. */
  destructiveCalls(): Call[] {
    return this.calls.filter((c) => ['wipefs', 'blkdiscard', 'sgdisk', 'mcopy', 'debugfs'].includes(c.cmd) || (c.cmd === 'docker' && c.args[0] === 'run'));
  }

  async cleanup(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}

/**
 * One lab machine for the loop tests: its own TPM (a copy of a golden swtpm state), booted by
 * playing a recorded firmware log into it; `fleet agent` run as HookOS runs it (the CLI, over the
 * TPM's socket, with this boot's id and the switch's LLDP frame); and the machine's world for the
 * Template's actions (its install disk a loop device over a sparse file, which the installer's
 * container reaches through /dev, in a fake sysfs with the NVMe disk's serial; /proc with the boot
 * id; HookOS's /worker/fleet; its Docker engine), where the actions run as tink-agent would run them.
 */
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ActionName } from '../../images/tink-reprovision-tools/actions.js';
import { nextBoot } from '../../images/tink-reprovision-tools/boot/next-boot.js';
import { rebootNow } from '../../images/tink-reprovision-tools/boot/reboot.js';
import { imageToDisk } from '../../images/tink-reprovision-tools/image/image-to-disk.js';
import { install } from '../../images/tink-reprovision-tools/install/install.js';
import type { Action } from '../../images/tink-reprovision-tools/lib/action.js';
import { wipeDisk } from '../../images/tink-reprovision-tools/wipe/wipe-disk.js';
import { ekHashOfCertificate } from '../../shared/ek-cert/ek-certificate.js';
import { Tpm } from '../../shared/tpm/client.js';
import { SocketTransport } from '../../shared/tpm/transport.js';
import { INSTALL_CODE_FILE } from '../../shared/worker/marker.js';
import { Loops, mirrorLoop, sha256sum, sparseFile } from '../actions/loop.js';
import { Rig } from '../actions/rig.js';
import type { DockerLab } from '../docker/lab.js';
import { buildLldpFrame } from '../lldp/frame.js';
import { simulateBoot } from '../swtpm/boot.js';
import { copyTpmState, goldenTpm } from '../swtpm/provision.js';
import { BOOT_LOG, RIG_PORT } from '../swtpm/rig.js';
import { startSwtpm, type RunningSwtpm } from '../swtpm/swtpm.js';
import { TSX } from '../tsx.js';

// reboot's hand-off needs a container of HookOS's engine (the QEMU lab runs it): here, its detached half.
const ACTIONS: { [A in ActionName]: Action<A> } = { 'wipe-disk': wipeDisk, install, 'image-to-disk': imageToDisk, 'next-boot': nextBoot, reboot: rebootNow };
const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const DISK = '/dev/nvme0n1';
export const DISK_SERIAL = 'S4EVNF0M123456';
const DISK_BYTES = 64 << 20;
export const MAC = '52:54:00:12:34:56';

export class Machine {
  private swtpm: RunningSwtpm | undefined;
  port = RIG_PORT;
  /** Console lines of every agent run, in order. */
  readonly console: string[] = [];

  private constructor(
    readonly serial: string,
    readonly actions: Rig,
    private readonly loops: Loops,
    /** The loop device that stands in for the NVMe install disk. */
    readonly disk: string,
    private readonly tpmState: string,
    readonly binding: { rsa2048: string; eccp256: string },
  ) {}

  /** A machine whose HookOS engine is `docker`'s. */
  static async create(docker: DockerLab, serial = 'SN-LOOP-0001'): Promise<Machine> {
    const actions = await Rig.create({ allowLoop: true, dockerSocket: docker.engine.socket });
    const golden = await goldenTpm('a');
    const state = await copyTpmState(golden, join(actions.dir, 'tpm'));
    // 64 MiB (the installer's EFI, META and STATE fit), sparse but for an old install's first MiB and last one.
    const file = join(actions.dir, 'nvme0n1.img');
    const head = randomBytes(1 << 20);
    head.write('EFI PART', 512, 'latin1');
    await sparseFile(file, DISK_BYTES, [
      [0, head],
      [DISK_BYTES - (1 << 20), randomBytes(1 << 20)],
    ]);
    const loops = new Loops();
    const disk = loops.attach(file);
    await writeFile(join(actions.dir, 'serial'), `${serial}\n`);
    return new Machine(serial, actions, loops, disk, state.stateDir, {
      rsa2048: ekHashOfCertificate(golden.ekCertRsaDer),
      eccp256: ekHashOfCertificate(golden.ekCertEccDer),
    });
  }

  /** A power cycle into HookOS: the TPM restarts (PCRs cleared), firmware measures the boot, a new boot id. */
  async boot(): Promise<string> {
    await this.swtpm?.stop();
    this.swtpm = await startSwtpm(this.tpmState);
    const tpm = new Tpm(await SocketTransport.connect({ path: this.swtpm.socketPath }));
    try {
      await simulateBoot(tpm, new Uint8Array(await readFile(BOOT_LOG)));
    } finally {
      await tpm.close();
    }
    const id = randomUUID();
    await this.actions.setBootId(id);
    return id;
  }

  get bootId(): string {
    return this.actions.bootId;
  }

  /** `fleet agent` in this boot, once: what HookOS's agent container runs. Answers its console lines. */
  async attest(url: string): Promise<string[]> {
    if (!this.swtpm) throw new Error('boot the machine first');
    const frame = join(this.actions.dir, 'lldp.bin');
    await writeFile(frame, buildLldpFrame({ chassisMac: '24:5a:4c:00:00:01', portId: this.port, systemName: 'usw-rack-1' }));
    const args = [
      'cli/fleet.ts',
      'agent',
      '--url',
      url,
      '--tpm',
      `unix:${this.swtpm.socketPath}`,
      '--mac',
      MAC,
      '--serial',
      this.serial,
      '--event-log',
      BOOT_LOG,
      '--boot-id-file',
      join(this.actions.proc, 'sys/kernel/random/boot_id'),
      '--install-code',
      join(this.actions.fleet, INSTALL_CODE_FILE),
      '--lldp-frame',
      frame,
      '--tries',
      '1',
    ];
    const out = await new Promise<string>((resolve) => {
      execFile(TSX[0], [...TSX.slice(1), ...args], { cwd: REPO }, (_err, stdout, stderr) => resolve(`${stdout}${stderr}`));
    });
    const lines = out.split('\n').filter((l) => l.trim() !== '');
    this.console.push(...lines);
    return lines;
  }

  /** The install code this boot's agent left for the actions, or null. */
  async installCode(): Promise<string | null> {
    return (await readFile(join(this.actions.fleet, INSTALL_CODE_FILE), 'utf8').catch(() => '')).trim() || null;
  }

  diskHash(): string {
    return sha256sum(this.disk);
  }

  /**
   * Runs one action as tink-agent runs its container: the environment its Template renders, this
   * machine's world. The Workflow names the disk by its /dev path; here that disk is a loop device.
   */
  async run<A extends ActionName>(name: A, env: Record<string, string>): Promise<{ code: number; lines: string[] }> {
    // sysfs shows the disk as the kernel has it now: an earlier action may have changed its partitions.
    await mirrorLoop(this.actions.sys, this.disk, DISK_SERIAL);
    return this.actions.perform(name, ACTIONS[name] as Action<A>, { ...env, ...(env.INSTALL_DISK === DISK ? { INSTALL_DISK: this.disk } : {}) });
  }

  async stop(): Promise<void> {
    await this.swtpm?.stop();
    this.loops.detachAll();
    await this.actions.cleanup();
  }
}

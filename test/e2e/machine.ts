/**
 * An e2e machine: its own TPM (a copy of a template state), firmware variables, disks and a
 * read-write share that holds HookOS's /worker and each boot's results; booted as often as a
 * scenario needs, each boot running a script from guest/ with the parameters the test gives.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { patternedDisk, sha256File } from './disks.js';
import { OVMF_VARS } from './host-tools.js';
import type { E2eRun, TpmTemplate } from './manifest.js';
import type { BootSource, DiskSpec, MachineSpec } from './qemu-args.js';
import { buildUki } from './parts/uki.js';
import { layoutEsp, SECURE_BOOT_FIRMWARE } from './secure-boot-esp.js';
import { startBoot, type RunningBoot } from './vm.js';

export type MachineDisk = Omit<DiskSpec, 'file'>;

/** Where the host's services are, as ports on its loopback. */
export interface HostServices {
  verifierPort: number;
  ntpPort: number;
  /** An HTTP server the guest reaches at http://10.0.2.101 (images). */
  filesPort?: number;
  /** Tinkerbell's server (tink-server.ts), which the guest's tink-agent reaches at http://10.0.2.102. */
  tinkPort?: number;
  /** The switch's socket pair on the NIC. */
  frames?: { qemuPort: number; hostPort: number };
}

export const GUEST_VERIFIER_URL = 'https://10.0.2.100';
export const GUEST_FILES_URL = 'http://10.0.2.101';
/** Each boot's hard limit: a boot is ~40 s on an idle machine, but the machine may be loaded. */
const BOOT_TIMEOUT_MS = 240_000;
/** image-to-disk keeps 1 GiB of RAM for HookOS and holds the image in what is left. */
const GUEST_MIB = 1536;

const guestScript = (name: string) => fileURLToPath(new URL(`guest/${name}.sh`, import.meta.url));

export class Machine {
  readonly serial: string;
  readonly uuid = randomUUID();
  readonly mac: string;
  readonly disks: Array<MachineDisk & { file: string }>;
  private boots = 0;
  /** The guest's clock at power-on (`-rtc base=`); unset, the host's. */
  rtcBase: string | undefined;
  /** Its RAM: image-to-disk holds an image in what HookOS's 1 GiB and its Docker engine leave. */
  memoryMiB = GUEST_MIB;
  /**
   * Boot HookOS as a UKI from an ESP, as the lab's iPXE chain loads one, rather than by QEMU's
   * -kernel, which rewrites the kernel's setup header: the firmware then measures the very file
   * `fleet hookos digest` reads.
   */
  hookosAsUki = false;

  private constructor(
    readonly dir: string,
    readonly tpmState: string,
    disks: MachineDisk[],
    name: string,
    readonly firmware: MachineSpec['firmware'],
  ) {
    this.serial = `E2E-${name.toUpperCase()}`;
    this.mac = `52:54:00:${[...randomBytes(3)].map((b) => b.toString(16).padStart(2, '0')).join(':')}`;
    this.disks = disks.map((d, i) => ({ ...d, file: join(dir, `disk${i}-${d.bus}-${d.serial}.raw`) }));
  }

  /** `secure-boot`: OVMF with Microsoft's keys, booting shim → grub → the run's kernel (secure-boot-esp.ts). */
  static create(run: E2eRun, name: string, tpm: TpmTemplate, disks: MachineDisk[], firmware: MachineSpec['firmware'] = 'plain'): Machine {
    const dir = mkdtempSync(join(run.runDir, `vm-${name}-`));
    const m = new Machine(dir, join(dir, 'tpm'), disks, name, firmware);
    cpSync(tpm.stateDir, m.tpmState, { recursive: true, filter: (src) => !src.endsWith('.lock') });
    copyFileSync(firmware === 'secure-boot' ? SECURE_BOOT_FIRMWARE.vars : OVMF_VARS, join(dir, 'vars.fd'));
    mkdirSync(join(dir, 'share'));
    for (const d of m.disks) patternedDisk(d.file, `${name}:${d.serial}`);
    return m;
  }

  get share(): string {
    return join(this.dir, 'share');
  }

  get varsFile(): string {
    return join(this.dir, 'vars.fd');
  }

  /**
   * The kernel command line, the same for every boot of this machine (PCR 9 measures it): the
   * verifier at its guestfwd address, SNTP at the host (the run's port), the boot NIC.
   */
  private append(s: HostServices): string {
    // no_timer_check: under TCG on a loaded host the kernel's IO-APIC timer check can fail and panic.
    return `console=ttyS0 loglevel=4 panic=-1 no_timer_check fleet_attest_url=${GUEST_VERIFIER_URL} fleet_ntp_server=10.0.2.2:${s.ntpPort} BOOTIF=01-${this.mac.replace(/:/g, '-')}`;
  }

  /** The HookOS UKI its last boot booted from (with hookosAsUki). */
  get uki(): string {
    return join(this.dir, 'hookos.efi');
  }

  /** The run's kernel and initrd with this command line: QEMU loads them, or the firmware a UKI of them, or grub from an ESP. */
  private async bootSource(run: E2eRun, append: string, workDir: string): Promise<BootSource> {
    if (this.firmware === 'plain' && this.hookosAsUki) {
      const dir = join(workDir, 'esp');
      mkdirSync(join(dir, 'EFI/BOOT'), { recursive: true });
      buildUki(
        { stub: run.installedImage.stub, kernel: run.vmlinuz, initrd: run.initrd, cmdline: append, osRelease: 'NAME="HookOS (fleet e2e)"\n' },
        this.uki,
        workDir,
      );
      copyFileSync(this.uki, join(dir, 'EFI/BOOT/BOOTX64.EFI'));
      return { kind: 'esp-folder', dir };
    }
    if (this.firmware === 'plain') return { kind: 'kernel', kernel: run.vmlinuz, initrd: run.initrd, append };
    const dir = join(workDir, 'esp');
    await layoutEsp({ loaders: run.signedLoaders, kernel: run.vmlinuz, initrd: run.initrd, cmdline: append, espDir: dir });
    return { kind: 'esp-folder', dir };
  }

  /** Starts boot number N (from 1) of the run's kernel (HookOS), running guest/<script>.sh with `params` in its environment. */
  async boot(
    run: E2eRun,
    script: string,
    params: Record<string, string>,
    services: HostServices,
    timeoutMs = BOOT_TIMEOUT_MS,
  ): Promise<RunningBoot & { number: number }> {
    copyFileSync(guestScript(script), join(this.share, 'boot.sh'));
    writeFileSync(
      join(this.share, 'params.sh'),
      Object.entries({ REGISTRY: `10.0.2.2:${run.registry.port}`, ...params })
        .map(([k, v]) => `${k}='${v}'\n`)
        .join(''),
    );
    return this.start(run, services, (workDir) => this.bootSource(run, this.append(services), workDir), timeoutMs);
  }

  /** Starts a boot with no kernel given: the firmware boots what its variables name, from the machine's disks. */
  bootFirmware(run: E2eRun, services: HostServices, timeoutMs = BOOT_TIMEOUT_MS): Promise<RunningBoot & { number: number }> {
    return this.start(run, services, async () => ({ kind: 'firmware' }), timeoutMs);
  }

  private async start(
    run: E2eRun,
    services: HostServices,
    source: (workDir: string) => Promise<BootSource>,
    timeoutMs: number,
  ): Promise<RunningBoot & { number: number }> {
    const number = ++this.boots;
    writeFileSync(join(this.share, 'boot-count'), `${number}\n`);
    const workDir = mkdtempSync(join(this.dir, `boot${number}-`));
    const forwards = [{ guest: '10.0.2.100:443', hostPort: services.verifierPort }];
    if (services.filesPort) forwards.push({ guest: '10.0.2.101:80', hostPort: services.filesPort });
    if (services.tinkPort) forwards.push({ guest: '10.0.2.102:80', hostPort: services.tinkPort });
    const running = await startBoot({
      firmware: this.firmware,
      ...(this.rtcBase ? { rtcBase: this.rtcBase } : {}),
      varsFile: this.varsFile,
      tpmState: this.tpmState,
      workDir,
      timeoutMs,
      boot: await source(workDir),
      smbios: { serial: this.serial, uuid: this.uuid },
      disks: this.disks,
      shares: [
        { tag: 'hostroot', path: '/', readonly: true },
        { tag: 'fleet', path: run.fleetShare, readonly: true },
        { tag: 'vm', path: this.share, readonly: false },
      ],
      nic: { mac: this.mac, forwards, relay: `${run.busybox} nc`, ...(services.frames ? { frames: services.frames } : {}) },
      memoryMiB: this.memoryMiB,
    });
    return Object.assign(running, { number });
  }

  /** A file a boot's script left in its results (null when it left none). */
  out(boot: number, name: string): string | null {
    const p = join(this.share, 'out', `boot-${boot}`, name);
    return existsSync(p) ? readFileSync(p, 'utf8') : null;
  }

  /** A step's output lines and exit code. */
  step(boot: number, name: string): { lines: string[]; rc: number | null } {
    const out = this.out(boot, `${name}.out`);
    const rc = this.out(boot, `${name}.rc`);
    return { lines: out === null ? [] : out.replace(/\n$/, '').split('\n'), rc: rc === null ? null : Number(rc) };
  }

  diskHashes(): string[] {
    return this.disks.map((d) => sha256File(d.file));
  }
}

/**
 * An e2e machine as its BMC sees it: on or off, with a one-time boot device, booting what its
 * firmware would. A power-on with a one-time PXE boot, or with no boot entry on a disk partition
 * (a machine never installed: the firmware falls through to the network), boots HookOS (the
 * run's kernel, which stands for the netboot); otherwise OVMF boots from its variables alone
 * (BootNext, then BootOrder), read back from the machine's variable file. A guest's reset is a
 * reboot: the machine powers on again at once, as real hardware does; a guest's power-off, or
 * the BMC's, leaves it off.
 */
import { onTestFailed } from 'vitest';
import type { HostServices, Machine } from '../machine.js';
import type { E2eRun } from '../manifest.js';
import { bootVariables } from '../ovmf-vars.js';
import { narrate, narrateConsole, narrating } from './narration.js';
import { keyConsoleLines, type BootResult, type RunningBoot } from '../vm.js';

export type BootKind = 'hookos' | 'disk';

export interface Boot {
  number: number;
  kind: BootKind;
  running: RunningBoot;
  result?: BootResult;
}

/** A HookOS boot waits for work until the BMC or the run ends it; a disk's first boot powers off. */
const LAB_BOOT_TIMEOUT_MS = 600_000;

export class PoweredMachine {
  readonly boots: Boot[] = [];
  private oneTime: 'pxe' | 'disk' | null = null;
  private current: Boot | null = null;
  private switching: Promise<void> = Promise.resolve();

  constructor(
    private readonly run: E2eRun,
    readonly machine: Machine,
    private readonly services: () => HostServices,
    /** The HookOS boot's script and parameters (guest/<script>.sh). */
    private readonly hookos: { script: string; params: Record<string, string> },
  ) {
    onTestFailed(() => {
      for (const b of this.boots)
        console.error(`e2e lab: boot ${b.number} (${b.kind}) of ${machine.serial}, its console:\n${keyConsoleLines(b.running.lines)}`);
    });
  }

  get power(): 'on' | 'off' {
    return this.current ? 'on' : 'off';
  }

  /** What the next power-on boots, as the firmware would choose. */
  private nextBoot(): BootKind {
    if (this.oneTime) return this.oneTime === 'pxe' ? 'hookos' : 'disk';
    const vars = bootVariables(this.machine.varsFile);
    const onDisk = (n: number | null | undefined) => n !== null && n !== undefined && vars.entries.get(n)?.partition === true;
    return onDisk(vars.bootNext) || vars.bootOrder.some(onDisk) ? 'disk' : 'hookos';
  }

  setOneTimeBoot(device: 'pxe' | 'disk'): void {
    this.oneTime = device;
  }

  powerOn(): Promise<void> {
    return (this.switching = this.switching.then(() => this.start()));
  }

  /** A hard power-off (QMP quit); nothing when already off. */
  powerOff(): Promise<void> {
    return (this.switching = this.switching.then(async () => {
      const boot = this.current;
      this.current = null;
      if (boot) boot.result = await boot.running.powerOff();
    }));
  }

  /** The power fails: QEMU is killed with whatever the guest was doing; the machine stays off. */
  powerLoss(): Promise<void> {
    return (this.switching = this.switching.then(async () => {
      const boot = this.current;
      this.current = null;
      if (!boot) return;
      boot.running.powerLoss();
      boot.result = await boot.running.done;
    }));
  }

  /** The demo's view of a boot: what it is, then its key console lines as they come. */
  private narrate(boot: Boot): void {
    narrate(
      `${this.machine.serial} powers on (boot ${boot.number}): ${boot.kind === 'hookos' ? 'it netboots HookOS' : 'its firmware boots the disk, by its boot entries'}`,
    );
    let seen = 0;
    const timer = setInterval(() => {
      const fresh = boot.running.lines.slice(seen);
      seen += fresh.length;
      for (const l of keyConsoleLines(fresh).split('\n').filter(Boolean)) narrateConsole(this.machine.serial, l);
    }, 300);
    void boot.running.done.then((r) => {
      clearInterval(timer);
      narrate(`${this.machine.serial} is off (${r.stopReason ?? 'killed'})`);
    });
  }

  private async start(): Promise<void> {
    if (this.current) return;
    const kind = this.nextBoot();
    this.oneTime = null;
    const running =
      kind === 'hookos'
        ? await this.machine.boot(this.run, this.hookos.script, this.hookos.params, this.services(), LAB_BOOT_TIMEOUT_MS)
        : await this.machine.bootFirmware(this.run, this.services(), LAB_BOOT_TIMEOUT_MS);
    const boot: Boot = { number: running.number, kind, running };
    this.boots.push(boot);
    this.current = boot;
    if (narrating) this.narrate(boot);
    void running.done.then((result) => {
      boot.result = result;
      if (this.current !== boot) return; // the BMC turned it off
      this.current = null;
      if (result.stopReason === 'guest-reset') void this.powerOn();
    });
  }
}

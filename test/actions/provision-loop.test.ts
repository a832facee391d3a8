import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextBoot } from '../../images/tink-reprovision-tools/boot/next-boot.js';
import { reboot, REBOOT_DELAY_S, rebootNow } from '../../images/tink-reprovision-tools/boot/reboot.js';
import { PART_TYPE } from '../../images/tink-reprovision-tools/disk/gpt.js';
import { readGpt } from '../../images/tink-reprovision-tools/disk/read-gpt.js';
import { install } from '../../images/tink-reprovision-tools/install/install.js';
import { installerArgs } from '../../images/tink-reprovision-tools/install/installer.js';
import { INSTALL_LINES } from '../../images/tink-reprovision-tools/lines/install.js';
import { NEXT_BOOT_LINES } from '../../images/tink-reprovision-tools/lines/next-boot.js';
import { printed } from '../../images/tink-reprovision-tools/lines/printed.js';
import { DOING, NOT_DONE, REBOOT_LINES } from '../../images/tink-reprovision-tools/lines/reboot.js';
import { CODE_BLANK, NOTHING, SHARED_LINES } from '../../images/tink-reprovision-tools/lines/shared.js';
import { wipeDisk } from '../../images/tink-reprovision-tools/wipe/wipe-disk.js';
import { isRoot, startDockerLab, type DockerLab } from '../docker/lab.js';
import { usedDisk } from './disk-images.js';
import { matching } from '../line-pattern.js';
import { asPrinted } from './printed-line.js';
import { Loops, mirrorLoop, sha256sum } from './loop.js';
import { Rig } from './rig.js';

/**
 * The provision Template on a real disk: wipe-disk (pulling the installer from a real registry),
 * install (a real engine runs the installer image), next-boot (the stub efibootmgr plays the
 * firmware's variables), reboot; each action run twice, and the runbook's failures of install.
 */
const CONFIG_URL = 'https://fleet.example:8443/v1/config';
const installSays = (line: string) => printed('install', line);
const failedLine = installSays(INSTALL_LINES.installerFailed());
const loops = new Loops();
let docker: DockerLab;
let rig: Rig;
let disk: string;

const wipeEnv = () => ({
  WIPE: 'true',
  INSTALL_DISK: disk,
  INSTALL_DISK_SERIAL: 'SN-PROVISION',
  INSTALL: 'true',
  OS: 'talos',
  INSTALLER_IMAGE: docker.installer.good,
  CONFIG_URL,
});
const installEnv = (more: Record<string, string> = {}) => ({
  INSTALL: 'true',
  INSTALL_DISK: disk,
  INSTALLER_IMAGE: docker.installer.good,
  CONFIG_URL,
  ...more,
});

/** A fresh boot that attested, with the disk wiped in it. */
async function wipedInNewBoot(): Promise<void> {
  await rig.setBootId(randomUUID());
  await rig.attest();
  await mirrorLoop(rig.sys, disk, 'SN-PROVISION');
  const r = await rig.perform('wipe-disk', wipeDisk, wipeEnv());
  expect(r.code, r.lines.join('\n')).toBe(0);
}

/** The `docker run`s install ran. */
const dockerRuns = () => rig.calls.filter((c) => c.cmd === 'docker' && c.args[0] === 'run').map((c) => c.args);

beforeAll(async () => {
  if (!isRoot) return;
  docker = await startDockerLab();
  rig = await Rig.create({ allowLoop: true, dockerSocket: docker.engine.socket });
  const file = join(rig.dir, 'disk.img');
  await usedDisk(file);
  disk = loops.attach(file);
  execFileSync('partx', ['--add', disk]);
}, 180_000);
afterAll(async () => {
  loops.detachAll();
  await rig?.cleanup();
  await docker?.stop();
});

describe.skipIf(!isRoot)('install', () => {
  it('installs Talos with talos.config at CONFIG_URL/<install code>, and never prints the code', async () => {
    const installer = docker.installer.good;
    await wipedInNewBoot();
    const since = Date.now();
    const r = await rig.perform('install', install, installEnv());
    expect(r).toEqual({ code: 0, lines: [installSays(INSTALL_LINES.running(installer, disk)), installSays(INSTALL_LINES.installed(disk))] });
    // The arguments as installerArgs makes them (test/actions/pure.test.ts spells them out).
    expect(dockerRuns().at(-1)).toEqual(installerArgs(installer, disk, CONFIG_URL, rig.code));
    expect(dockerRuns().at(-1)!.at(-1)).toBe(`${CONFIG_URL}/${rig.code}`);
    expect(await docker.engine.containersCreated(since)).toEqual([installer]);
    const gpt = await readGpt(disk);
    expect(gpt?.partitions.map((p) => [p.index, p.type])).toEqual([
      [1, PART_TYPE.efiSystem],
      [2, PART_TYPE.linuxFilesystem],
      [3, PART_TYPE.linuxFilesystem],
    ]);
    const cmdline = execFileSync('mtype', ['-i', `${disk}@@${2048 * 512}`, '::/EFI/Talos/cmdline'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, MTOOLS_SKIP_CHECK: '1' },
    });
    expect(cmdline).toContain(`talos.config=${CONFIG_URL}/${rig.code}`);
    expect(rig.lines.join('\n')).not.toContain(rig.code);
  });

  it("run again in the same boot (the agent restarted mid-install): the installer's own refusal, then the failure line; the disk is unchanged", async () => {
    const before = sha256sum(disk);
    const since = Date.now();
    const r = await rig.perform('install', install, installEnv());
    expect(await docker.engine.containersCreated(since)).toEqual([docker.installer.good]);
    expect(r.code).toBe(1);
    expect(r.lines.slice(-2)).toEqual([
      installSays(`failed to perform disk operations: disk ${disk} is not empty, skipping install, detected "gpt"`),
      failedLine,
    ]);
    expect(r.lines.length).toBeLessThanOrEqual(22);
    expect(sha256sum(disk)).toBe(before);
  });

  it('resumed in a new boot after wipe-disk: refuses, installs nothing, runs no installer', async () => {
    const before = sha256sum(disk);
    const runs = dockerRuns().length;
    const since = Date.now();
    await rig.setBootId(randomUUID());
    await rig.attest();
    const r = await rig.perform('install', install, installEnv());
    expect(r).toEqual({ code: 1, lines: [installSays(SHARED_LINES.resumed(NOTHING.install))] });
    expect(sha256sum(disk)).toBe(before);
    expect(dockerRuns()).toHaveLength(runs);
    expect(await docker.engine.containersCreated(since)).toEqual([]);
  });

  it('an installer that fails: its last lines, the code blanked, then the failure line', async () => {
    // wipe-disk pulled the good installer in this boot; the engine pulls the broken one as install runs it.
    await wipedInNewBoot();
    const since = Date.now();
    const r = await rig.perform('install', install, installEnv({ INSTALLER_IMAGE: docker.installer.broken }));
    expect(await docker.engine.containersCreated(since)).toEqual([docker.installer.broken]);
    expect(r.code).toBe(1);
    expect(r.lines).toContain(installSays(`2025/03/01 10:00:00 kernel command line: talos.platform=metal talos.config=${CONFIG_URL}/${CODE_BLANK}`));
    expect(r.lines.slice(-2)).toEqual([
      installSays('failed to create partitions: failed to write GPT: failed to add partition 1: invalid argument'),
      failedLine,
    ]);
    expect(r.lines.join('\n')).not.toContain(rig.code);
  });

  it('a retirement (INSTALL false) installs nothing; a disk other than the wiped one or no code is refused', async () => {
    const runs = dockerRuns().length;
    const since = Date.now();
    expect(await rig.perform('install', install, installEnv({ INSTALL: 'false' }))).toEqual({
      code: 0,
      lines: [installSays(INSTALL_LINES.skipped('false'))],
    });
    expect(await rig.perform('install', install, installEnv({ INSTALL_DISK: '/dev/sdq' }))).toEqual({
      code: 1,
      lines: [installSays(SHARED_LINES.notWiped('/dev/sdq', disk, NOTHING.install))],
    });
    await rm(join(rig.fleet, 'install_code'));
    expect(await rig.perform('install', install, installEnv())).toEqual({ code: 1, lines: [installSays(SHARED_LINES.noInstallCode())] });
    expect(dockerRuns()).toHaveLength(runs);
    expect(await docker.engine.containersCreated(since)).toEqual([]);
  });
});

describe.skipIf(!isRoot)('next-boot and reboot after an install', () => {
  const PXE = {
    label: 'UEFI PXEv4 (MAC:525400123456)',
    path: 'PciRoot(0x0)/Pci(0x3,0x0)/MAC(525400123456,1)/IPv4(0.0.0.0,0,DHCP,0.0.0.0,0.0.0.0,0.0.0.0)',
    active: true,
  };
  const UIAPP = { label: 'UiApp', path: 'FvVol(7cb8bdc9-f8eb-4f34-aaea-3ee4af6516a1)/FvFile(462caa21-7614-4503-836e-8ab6f4662331)', active: false };
  const STALE = { label: 'fleet talos', path: 'HD(1,GPT,0b5c0a2e-6f4e-4b1a-9a55-0d4f1f0e8c11,0x800,0x8000)/File(\\EFI\\BOOT\\BOOTX64.EFI)', active: true };
  const efivars = async () => JSON.parse(await readFile(rig.efivars, 'utf8')) as { bootNext: string; bootOrder: string[]; entries: Record<string, typeof PXE> };

  beforeAll(async () => {
    await wipedInNewBoot();
    expect((await rig.perform('install', install, installEnv())).code).toBe(0);
    await writeFile(
      rig.efivars,
      JSON.stringify({
        bootCurrent: '0001',
        timeout: 0,
        bootNext: null,
        bootOrder: ['0001', '0002', '0000'],
        entries: { '0000': UIAPP, '0001': PXE, '0002': STALE },
      }),
    );
  });

  it("replaces an earlier install's entry with one for this ESP, first in BootOrder and BootNext, read back", async () => {
    const esp = (await readGpt(disk))!.partitions[0]!;
    const r = await rig.perform('next-boot', nextBoot, { OS: 'talos', INSTALL_DISK: disk });
    expect(r).toEqual({
      code: 0,
      lines: [
        printed('next-boot', NEXT_BOOT_LINES.deletedStale('0002', 'talos')),
        printed('next-boot', NEXT_BOOT_LINES.entry('0002', 'talos', '1', esp.guid, disk)),
        printed('next-boot', NEXT_BOOT_LINES.order('0002', '0002,0001,0000')),
      ],
    });
    const vars = await efivars();
    expect(vars.entries['0002']).toEqual({ label: 'fleet talos', path: `HD(1,GPT,${esp.guid},0x800,0x8000)/File(\\EFI\\BOOT\\BOOTX64.EFI)`, active: true });
    expect(Object.keys(vars.entries)).toEqual(['0000', '0001', '0002']);
  });

  it('run again: keeps its entry and the order, creates nothing', async () => {
    const before = await efivars();
    const r = await rig.perform('next-boot', nextBoot, { OS: 'talos', INSTALL_DISK: disk });
    expect(r.code).toBe(0);
    expect(r.lines).toHaveLength(2);
    expect(await efivars()).toEqual(before);
  });

  it('a retirement (no OS) leaves the entries as they are', async () => {
    const before = await efivars();
    expect(await rig.perform('next-boot', nextBoot, { OS: '', INSTALL_DISK: disk })).toEqual({
      code: 0,
      lines: [printed('next-boot', NEXT_BOOT_LINES.skipped())],
    });
    expect(await efivars()).toEqual(before);
  });

  const rebootSays = (line: string) => printed('reboot', line);
  const synced = rebootSays(REBOOT_LINES.synced());

  it('the detached container reboots, or powers off for a retirement, through the sysrq trigger after its wait and a sync; twice', async () => {
    const trigger = join(rig.proc, 'sysrq-trigger');
    for (let i = 0; i < 2; i++) {
      await writeFile(trigger, '');
      expect(await rig.perform('reboot', rebootNow, { POWER_OFF: 'false' })).toEqual({ code: 0, lines: [synced, rebootSays(REBOOT_LINES.now(DOING.reboot))] });
      expect(await readFile(trigger, 'utf8')).toBe('sb');
    }
    await writeFile(trigger, '');
    expect(await rig.perform('reboot', rebootNow, { POWER_OFF: 'true' })).toEqual({ code: 0, lines: [synced, rebootSays(REBOOT_LINES.now(DOING.off))] });
    expect(await readFile(trigger, 'utf8')).toBe('so');
    expect(rig.calls.filter((c) => c.cmd === 'sync')).toHaveLength(3);
    expect(rig.slept).toEqual([REBOOT_DELAY_S * 1000, REBOOT_DELAY_S * 1000, REBOOT_DELAY_S * 1000]);
  });

  it('outside a container of the engine it runs on, the action cannot hand the reboot off: it says so and pulls no trigger', async () => {
    const trigger = join(rig.proc, 'sysrq-trigger');
    await writeFile(trigger, '');
    const from = rig.calls.length;
    const r = await rig.perform('reboot', reboot, { POWER_OFF: 'false' });
    expect(r.code).toBe(1);
    expect(r.lines[0]).toBe(synced);
    expect(r.lines[1]).toMatch(matching(asPrinted('reboot', REBOOT_LINES.noImage), /.+/, NOT_DONE.reboot));
    expect(await readFile(trigger, 'utf8')).toBe('');
    expect(rig.calls.slice(from).map((c) => `${c.cmd} ${c.args[0]}`)).toEqual(['sync undefined', 'docker inspect']);
  });
});

import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadsFrom, orderFirst, parseEfibootmgr, planEntries } from '../../images/tink-reprovision-tools/boot/efibootmgr.js';
import { nextBoot } from '../../images/tink-reprovision-tools/boot/next-boot.js';
import { writeWipedRecord } from '../../images/tink-reprovision-tools/lib/fleet-dir.js';
import { DISK_LINES } from '../../images/tink-reprovision-tools/lines/disk.js';
import { NEXT_BOOT_FAILURES, NEXT_BOOT_LINES } from '../../images/tink-reprovision-tools/lines/next-boot.js';
import { printed } from '../../images/tink-reprovision-tools/lines/printed.js';
import { NOTHING, SHARED_LINES } from '../../images/tink-reprovision-tools/lines/shared.js';
import { usedDisk } from './disk-images.js';
import { addDisk } from './fake-sysfs.js';
import { sparseFile } from './loop.js';
import { Rig } from './rig.js';

const GUID = '5f3c0a2e-6f4e-4b1a-9a55-0d4f1f0e8c11';
const said = (line: string) => printed('next-boot', line);

describe("efibootmgr's listing", () => {
  // efibootmgr 17 -v (Debian 12), with an inactive entry and optional data after the path.
  const v17 = [
    'BootNext: 0003',
    'BootCurrent: 0001',
    'Timeout: 0 seconds',
    'BootOrder: 0003,0001,0000',
    'Boot0000  UiApp\tFvVol(7cb8bdc9-f8eb-4f34-aaea-3ee4af6516a1)/FvFile(462caa21-7614-4503-836e-8ab6f4662331)',
    'Boot0001* UEFI PXEv4 (MAC:525400123456)\tPciRoot(0x0)/Pci(0x3,0x0)/MAC(525400123456,1)/IPv4(0.0.0.0,0,DHCP,0.0.0.0,0.0.0.0,0.0.0.0)N.....YM....R,Y.',
    `Boot0003* fleet talos\tHD(1,GPT,${GUID.toUpperCase()},0x800,0x8000)/File(\\EFI\\BOOT\\BOOTX64.EFI)`,
    '',
  ].join('\n');

  it("reads BootNext, BootOrder and each entry's number, state, label and path", () => {
    const s = parseEfibootmgr(v17);
    expect(s.next).toBe('0003');
    expect(s.order).toEqual(['0003', '0001', '0000']);
    expect(s.entries.map((e) => [e.num, e.active, e.label])).toEqual([
      ['0000', false, 'UiApp'],
      ['0001', true, 'UEFI PXEv4 (MAC:525400123456)'],
      ['0003', true, 'fleet talos'],
    ]);
    expect(loadsFrom(s.entries[2]!, GUID, '\\EFI\\BOOT\\BOOTX64.EFI')).toBe(true);
    expect(loadsFrom(s.entries[2]!, '0b5c0a2e-6f4e-4b1a-9a55-0d4f1f0e8c11', '\\EFI\\BOOT\\BOOTX64.EFI')).toBe(false);
  });

  it("reads efivar 39's paths without File(…), and a firmware with no BootOrder", () => {
    const s = parseEfibootmgr(
      `No BootOrder is set; firmware will attempt recovery\nBoot0004* fleet nixos-image\tHD(2,GPT,${GUID},0x800,0x8000)/\\EFI\\BOOT\\BOOTX64.EFI\n`,
    );
    expect(s).toMatchObject({ next: null, order: [] });
    expect(loadsFrom(s.entries[0]!, GUID, '\\EFI\\BOOT\\BOOTX64.EFI')).toBe(true);
  });

  it('plans to keep the one active entry for this ESP and delete the other entries of its label', () => {
    const s = parseEfibootmgr(
      `${v17}Boot0005  fleet talos\tHD(1,GPT,${GUID},0x800,0x8000)/File(\\EFI\\BOOT\\BOOTX64.EFI)\nBoot0006* fleet talos\tHD(1,GPT,0b5c0a2e-6f4e-4b1a-9a55-0d4f1f0e8c11,0x800,0x8000)/File(\\EFI\\BOOT\\BOOTX64.EFI)\n`,
    );
    expect(planEntries(s, 'fleet talos', GUID, '\\EFI\\BOOT\\BOOTX64.EFI')).toEqual({ keep: '0003', stale: ['0005', '0006'] });
    expect(planEntries(s, 'fleet alpine-image', GUID, '\\EFI\\BOOT\\BOOTX64.EFI')).toEqual({ keep: null, stale: [] });
    expect(orderFirst(['0001', '0005', '0003', '0000'], '0003', ['0005'])).toEqual(['0003', '0001', '0000']);
  });
});

describe('next-boot refuses before it changes a boot entry', () => {
  let rig: Rig;
  let disk: string;
  const vars = JSON.stringify({
    bootCurrent: '0001',
    timeout: 0,
    bootNext: null,
    bootOrder: ['0001'],
    entries: { '0001': { label: 'UEFI PXEv4', path: 'MAC(525400123456,1)', active: true } },
  });

  beforeEach(async () => {
    rig = await Rig.create();
    disk = join(rig.dir, 'disk.img');
    await addDisk(rig.sys, { name: 'nvme0n1', transport: 'nvme', dev: '259:0', serial: 'SN-1' });
    rig.devs.set(disk, '259:0');
    await writeWipedRecord(rig.io(), { bootId: rig.bootId, disk, serial: 'SN-1', at: new Date().toISOString() });
    await writeFile(rig.efivars, vars);
  });
  afterEach(() => rig.cleanup());

  async function refused(line: string): Promise<void> {
    const r = await rig.perform('next-boot', nextBoot, { OS: 'talos', INSTALL_DISK: disk });
    expect(r).toEqual({ code: 1, lines: [line] });
    expect(await readFile(rig.efivars, 'utf8')).toBe(vars);
    expect(rig.calls.filter((c) => c.cmd === 'efibootmgr')).toEqual([]);
  }

  it('a disk with no GPT, no ESP, or two', async () => {
    await sparseFile(disk, 64 << 20);
    await refused(said(DISK_LINES.noGpt(disk)));
    execFileSync('sgdisk', ['-n', '1:2048:+8M', '-t', '1:8300', disk], { stdio: 'ignore' });
    await refused(said(DISK_LINES.noEsp(disk)));
    execFileSync('sgdisk', ['-n', '2:0:+8M', '-t', '2:EF00', '-n', '3:0:+8M', '-t', '3:EF00', disk], { stdio: 'ignore' });
    await refused(said(DISK_LINES.manyEsps(disk, '2', '2, 3')));
  });

  it('an ESP without the removable-path loader', async () => {
    await usedDisk(disk);
    execFileSync('mdel', ['-i', `${disk}@@${2048 * 512}`, '::/EFI/BOOT/BOOTX64.EFI'], { env: { ...process.env, MTOOLS_SKIP_CHECK: '1' } });
    await refused(said(NEXT_BOOT_LINES.noLoader(disk, '1')));
  });

  it('a run resumed in a new boot, or a disk that no longer reports the serial wipe-disk saw', async () => {
    await usedDisk(disk);
    await rig.setBootId('00000000-0000-4000-8000-00000000000a');
    await refused(said(SHARED_LINES.resumed(NOTHING['next-boot'])));
    await writeWipedRecord(rig.io(), { bootId: rig.bootId, disk, serial: 'SN-OTHER', at: new Date().toISOString() });
    await refused(said(DISK_LINES.noneReports('SN-OTHER')));
  });

  it('says so when the machine has no EFI variables', async () => {
    await usedDisk(disk);
    rig.efi = false;
    const r = await rig.perform('next-boot', nextBoot, { OS: 'talos', INSTALL_DISK: disk });
    expect(r).toEqual({
      code: 1,
      lines: [said(SHARED_LINES.failed(NEXT_BOOT_FAILURES.efibootmgrFailed('-v', 'EFI variables are not supported on this system.')))],
    });
  });
});

/**
 * The installed system a disk-image provision writes (parts/installed-image.ts: a UKI on the
 * image's ESP): OVMF boots it from its firmware entry alone, no kernel given, and its first boot
 * takes the node's seed from fleetd with the reference fetch, or says why it cannot.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { afterAll, describe, expect, it, onTestFailed } from 'vitest';
import { IMAGE_LINES } from '../../images/tink-reprovision-tools/lines/image.js';
import { NEXT_BOOT_LINES } from '../../images/tink-reprovision-tools/lines/next-boot.js';
import { printed } from '../../images/tink-reprovision-tools/lines/printed.js';
import { bootChecked } from './boot-checked.js';
import { nodeEntry, startHost, type Host } from './host.js';
import { GUEST_FILES_URL, Machine, type HostServices } from './machine.js';
import { e2eRun } from './manifest.js';
import type { BootResult } from './vm.js';

const run = e2eRun();
const hosts: Host[] = [];
afterAll(() => Promise.all(hosts.map((h) => h.close())));

const MTOOLS = { ...process.env, MTOOLS_SKIP_CHECK: '1' };
/** The image's ESP starts at 1 MiB; mtools reads it inside the machine's disk file. */
const espFile = (m: Machine, name: string) => execFileSync('mtype', ['-i', `${m.disks[0]!.file}@@${1 << 20}`, `::/${name}`], { encoding: 'utf8', env: MTOOLS });
const espNames = (m: Machine) =>
  execFileSync('mdir', ['-b', '-i', `${m.disks[0]!.file}@@${1 << 20}`, '::/'], { encoding: 'utf8', env: MTOOLS })
    .split('\n')
    .filter(Boolean);

/** A boot with no kernel given; the firmware's and the first boot's lines are printed when a check fails. */
async function firmwareBoot(m: Machine, services: HostServices): Promise<BootResult> {
  const boot = await m.bootFirmware(run, services);
  onTestFailed(() =>
    console.error(
      `e2e firmware boot ${boot.number} of ${m.serial}, the console:\n${boot.lines.filter((l) => /BdsDxe|EFI stub|first-boot:|panic|qemu:/.test(l)).join('\n')}`,
    ),
  );
  const result = await boot.done;
  expect(result.timedOut, 'the boot hit its hard timeout').toBe(false);
  return result;
}

/** The firmware entry a boot made, from its `efibootmgr -v` step: BootNext, first in BootOrder, loading the ESP's loader. */
function fleetEntry(m: Machine, boot: number): { num: string; guid: string } {
  const efi = m.step(boot, 'efibootmgr');
  expect(efi.rc).toBe(0);
  const next = /^BootNext: ([0-9A-F]{4})$/.exec(efi.lines.find((l) => l.startsWith('BootNext:')) ?? '')?.[1];
  expect(next, efi.lines.join('\n')).toBeDefined();
  expect(efi.lines.find((l) => l.startsWith('BootOrder:'))).toMatch(new RegExp(`^BootOrder: ${next}(,|$)`));
  const entry = new RegExp(`^Boot${next}\\* fleet nixos-image\\s+HD\\(1,GPT,([0-9a-f-]{36}),.*\\)/File\\(\\\\EFI\\\\BOOT\\\\BOOTX64\\.EFI\\)`, 'i');
  const guid = efi.lines.map((l) => entry.exec(l)?.[1]).find(Boolean);
  expect(guid, efi.lines.join('\n')).toBeDefined();
  return { num: next!, guid: guid!.toLowerCase() };
}

describe.skipIf(run.skip !== null)('the installed image', () => {
  it('is a small GPT disk whose ESP holds the UKI at the removable path', () => {
    const names = execFileSync('mdir', ['-b', '-i', `${run.installedImage.file}@@${1 << 20}`, '::/EFI/BOOT'], { encoding: 'utf8', env: MTOOLS });
    expect(names.trim()).toBe('::/EFI/BOOT/BOOTX64.EFI');
    expect(run.installedImage.bytes).toBeLessThan(32 << 20);
  });

  it('boots from its firmware entry and, with no fleet-seed.json on its ESP, says so and leaves the disk as it was', async () => {
    const m = Machine.create(run, 'installed-bare', run.tpm.b, [{ bus: 'nvme', serial: 'E2E-NVME-BARE' }]);
    const fd = openSync(m.disks[0]!.file, 'r+');
    writeSync(fd, readFileSync(run.installedImage.file), 0, run.installedImage.bytes, 0);
    closeSync(fd);
    const host = await startHost(run, m.dir, { nodes: { 'node-bare': nodeEntry(m.serial, 'E2E-NVME-BARE', 'nixos') }, lldp: false });
    hosts.push(host);
    const before = m.diskHashes();

    await bootChecked(run, m, 'installed-image-entry', { OS: 'nixos-image' }, host.services);
    expect(m.step(1, 'entry').rc).toBe(0);
    const { num, guid } = fleetEntry(m, 1);

    const boot = await firmwareBoot(m, host.services);
    expect(boot.lines).toContainEqual(expect.stringContaining(`BdsDxe: starting Boot${num} "fleet nixos-image"`));
    expect(boot.lines).toContainEqual(expect.stringContaining(`first-boot: booted Boot${num} from the ESP ${guid} (/dev/nvme0n1p1)`));
    expect(boot.lines).toContain('first-boot: fleet-seed: no /run/esp/fleet-seed.json: this disk was not installed by fleet, or its seed was taken');
    expect(boot.lines).toContain('first-boot: no seed: the fetch exited 1');
    expect(m.step(2, 'first-boot')).toEqual({
      lines: ['fleet-seed: no /run/esp/fleet-seed.json: this disk was not installed by fleet, or its seed was taken'],
      rc: 1,
    });
    expect(m.diskHashes()).toEqual(before);
  });

  it('written by a provision (agent, wipe-disk, image-to-disk, next-boot), boots from its entry and takes its seed from fleetd once', async () => {
    const m = Machine.create(run, 'installed', run.tpm.a, [
      { bus: 'nvme', serial: 'E2E-NVME-INSTALLED' },
      { bus: 'virtio', serial: 'E2E-OTHER' },
    ]);
    const imageUrl = `${GUEST_FILES_URL}/images/installed.raw`;
    const host = await startHost(run, m.dir, {
      nodes: { 'node-installed': nodeEntry(m.serial, 'E2E-NVME-INSTALLED', 'nixos', run.tpm.a) },
      classes: { nixos: { payload: 'nixos-image', image_url: imageUrl, image_sha256: run.installedImage.sha256 } },
      files: { '/images/installed.raw': readFileSync(run.installedImage.file) },
      lldp: true,
    });
    hosts.push(host);
    const other = m.diskHashes()[1];

    await bootChecked(
      run,
      m,
      'fresh-machine',
      {
        DISK_SERIAL: 'E2E-NVME-INSTALLED',
        IMAGE_URL: imageUrl,
        IMAGE_SHA256: run.installedImage.sha256,
        SEED_URL: 'https://10.0.2.100/v1/seed',
        NODE: 'node-installed',
        OS: 'nixos-image',
        LLDP_WINDOW: '10',
      },
      host.services,
    );
    for (const s of ['agent', 'wipe-disk', 'image-to-disk', 'next-boot']) expect(m.step(1, s).rc, `${s}:\n${m.step(1, s).lines.join('\n')}`).toBe(0);
    expect(m.step(1, 'image-to-disk').lines).toContain(
      printed('image-to-disk', IMAGE_LINES.wrote(String(run.installedImage.bytes), '/dev/nvme0n1', run.installedImage.sha256)),
    );
    const { num, guid } = fleetEntry(m, 1);
    expect(m.step(1, 'next-boot').lines).toContain(printed('next-boot', NEXT_BOOT_LINES.entry(num, 'nixos-image', '1', guid, '/dev/nvme0n1')));
    expect(JSON.parse(espFile(m, 'fleet-seed.json'))).toMatchObject({ node: 'node-installed', nodeUuid: m.uuid });

    // The installed system's first boot: BootNext names it; the seed is written and the code spent.
    const first = await firmwareBoot(m, host.services);
    expect(first.lines).toContainEqual(expect.stringContaining(`BdsDxe: starting Boot${num} "fleet nixos-image"`));
    expect(first.lines).toContainEqual(expect.stringContaining(`first-boot: booted Boot${num} from the ESP ${guid} (/dev/nvme0n1p1)`));
    expect(first.lines).toContain('first-boot: fleet-seed: seed written to /run/vm/out/boot-2/seed.json for node-installed');
    expect(first.lines).toContain('first-boot: the seed for node-installed is in /run/vm/out/boot-2/seed.json');
    expect(m.step(2, 'first-boot').rc).toBe(0);
    expect(JSON.parse(m.out(2, 'seed.json')!)).toMatchObject({
      version: 1,
      hostname: 'node-installed',
      mac: m.mac,
      nodeUuid: m.uuid,
      class: { name: 'nixos' },
    });
    expect(espNames(m)).not.toContain('::/fleet-seed.json');
    const shown = await host.verifier.show('node-installed');
    expect(shown.record?.status).toBe('active');
    expect(shown.journal.map((j) => j.message)).toContainEqual(expect.stringMatching(/^fleetd served the seed of its run to /));

    // The next power-on follows BootOrder to the same entry, and finds the seed taken.
    const second = await firmwareBoot(m, host.services);
    expect(second.lines).toContainEqual(expect.stringContaining(`first-boot: booted Boot${num} from the ESP ${guid} (/dev/nvme0n1p1)`));
    expect(m.step(3, 'first-boot').rc).toBe(1);
    expect(m.diskHashes()[1]).toBe(other);
  });
});

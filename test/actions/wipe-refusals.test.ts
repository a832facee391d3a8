import { randomBytes } from 'node:crypto';
import { access, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WIPED_FILE } from '../../images/tink-reprovision-tools/lib/fleet-dir.js';
import { wipeDisk } from '../../images/tink-reprovision-tools/wipe/wipe-disk.js';
import { addDisk, type FakeDisk } from './fake-sysfs.js';
import { Files } from './http.js';
import { sha256sum } from './loop.js';
import { Rig } from './rig.js';

/**
 * Every line wipe-disk refuses with (the runbook's failure table), each on a machine of fake disks:
 * a sysfs tree and a disk file per disk. A refusal leaves every disk byte-identical, writes no wipe
 * record and runs no tool that writes.
 */
const INSTALLER = 'ghcr.io/siderolabs/installer:v1.9.5';
let rig: Rig;
let files: Files;
const disks = new Map<string, string>();

beforeEach(async () => {
  rig = await Rig.create();
  files = await new Files().start();
  disks.clear();
  await writeFile(join(rig.dockerState, 'registry.json'), JSON.stringify({ images: { [INSTALLER]: 'ok' } }));
});
afterEach(async () => {
  await files.stop();
  await rig.cleanup();
});

/** A fake disk in sysfs and its disk file, 4 MiB of random bytes with a GPT signature. */
async function disk(d: Omit<FakeDisk, 'sizeBytes'>): Promise<string> {
  await addDisk(rig.sys, { ...d, sizeBytes: 4 << 20 });
  const path = join(rig.dir, `${d.name}.img`);
  const bytes = randomBytes(4 << 20);
  bytes.write('EFI PART', 512, 'latin1');
  await writeFile(path, bytes);
  rig.devs.set(path, d.dev);
  disks.set(path, sha256sum(path));
  return path;
}

const env = (installDisk: string, more: Record<string, string> = {}) => ({
  WIPE: 'true',
  INSTALL_DISK: installDisk,
  INSTALL_DISK_SERIAL: 'S4EVNF0M123456',
  INSTALLER_IMAGE: INSTALLER,
  ...more,
});

async function refused(e: Record<string, string>, lines: string[]): Promise<void> {
  const r = await rig.perform('wipe-disk', wipeDisk, e);
  expect(r.lines).toEqual(lines);
  expect(r.code).toBe(1);
  for (const [path, sum] of disks) expect(sha256sum(path), `${path} changed`).toBe(sum);
  await expect(access(join(rig.fleet, WIPED_FILE))).rejects.toThrow();
  expect(rig.destructiveCalls()).toEqual([]);
}

describe('wipe-disk refuses, touching nothing', () => {
  let nvme: string;
  beforeEach(async () => {
    nvme = await disk({ name: 'nvme0n1', transport: 'nvme', dev: '259:0', serial: 'S4EVNF0M123456' });
    await rig.attest();
  });

  it('without a declared serial', async () => {
    await refused(env(nvme, { INSTALL_DISK_SERIAL: '' }), ['wipe: no install disk serial is declared']);
  });

  it('in a boot that left no attestation marker, or a marker of another boot', async () => {
    await rig.setBootId('00000000-0000-4000-8000-000000000001');
    await refused(env(nvme), ['wipe: this boot did not pass attestation']);
    await rig.attest({ bootId: '00000000-0000-4000-8000-000000000002' });
    await refused(env(nvme), ['wipe: this boot did not pass attestation']);
  });

  it('without an install code', async () => {
    await rm(join(rig.fleet, 'install_code'));
    await refused(env(nvme), ['wipe: no install code']);
  });

  it('when no disk reports the serial', async () => {
    await refused(env(nvme, { INSTALL_DISK_SERIAL: 'S4EVNF0M999999' }), ['wipe: no disk reports the serial S4EVNF0M999999']);
  });

  it('when the declared path is another disk than the one that reports the serial (slots swapped, a USB disk took its name)', async () => {
    const sata = await disk({ name: 'sda', transport: 'sata', dev: '8:0', serial: 'QM00005' });
    await refused(env(sata), [`wipe: ${sata} is the disk with serial QM00005, but the disk that reports S4EVNF0M123456 is /dev/nvme0n1`]);
  });

  it('when the disk that reports the serial is removable, or on USB', async () => {
    const stick = await disk({ name: 'sdb', transport: 'usb', dev: '8:16', serial: 'USB-1', removable: true });
    await refused(env(stick, { INSTALL_DISK_SERIAL: 'USB-1' }), ['wipe: /dev/sdb is removable']);
    const ssd = await disk({ name: 'sdc', transport: 'usb', dev: '8:32', serial: 'USB-2' });
    await refused(env(ssd, { INSTALL_DISK_SERIAL: 'USB-2' }), ['wipe: /dev/sdc is on USB']);
  });

  it('when more than one disk reports the serial', async () => {
    await disk({ name: 'sda', transport: 'sata', dev: '8:0', serial: 'S4EVNF0M123456' });
    await refused(env(nvme), ['wipe: more than one disk reports the serial S4EVNF0M123456']);
  });

  it('when the disk is read-only, or RAID, LVM or device-mapper hold it or one of its partitions', async () => {
    const ro = await disk({ name: 'vda', transport: 'virtio', dev: '254:0', serial: 'RO-1', ro: true });
    await refused(env(ro, { INSTALL_DISK_SERIAL: 'RO-1' }), [`wipe: ${ro} is read-only`]);
    const held = await disk({ name: 'vdb', transport: 'virtio', dev: '254:16', serial: 'LVM-1', holders: ['dm-0'] });
    await refused(env(held, { INSTALL_DISK_SERIAL: 'LVM-1' }), [`wipe: ${held} is held by dm-0 (RAID, LVM or device-mapper)`]);
    const raid = await disk({ name: 'vdc', transport: 'virtio', dev: '254:32', serial: 'MD-1', partitions: [{ name: 'vdc1', dev: '254:33', holders: ['md127'] }] });
    await refused(env(raid, { INSTALL_DISK_SERIAL: 'MD-1' }), [`wipe: ${raid} is held by md127 (RAID, LVM or device-mapper)`]);
  });

  it('when a partition\'s /dev node is not that partition', async () => {
    const parted = await disk({ name: 'vdz', transport: 'virtio', dev: '254:48', serial: 'P-1', partitions: [{ name: 'vdz1', dev: '254:49' }] });
    await refused(env(parted, { INSTALL_DISK_SERIAL: 'P-1' }), ['wipe: /dev/vdz1 is not partition vdz1 (254:49) of vdz; nothing wiped']);
  });

  it('when the installer image cannot be pulled: the registry lacks it, or does not answer', async () => {
    const found = `wipe: ${nvme} reports the serial S4EVNF0M123456`;
    await refused(env(nvme, { INSTALLER_IMAGE: 'ghcr.io/siderolabs/installer:v9.9.9' }), [
      found,
      'wipe: the installer image ghcr.io/siderolabs/installer:v9.9.9 cannot be pulled (Error response from daemon: manifest unknown); nothing wiped',
    ]);
    await writeFile(join(rig.dockerState, 'registry.json'), JSON.stringify({ offline: true, images: {} }));
    await refused(env(nvme), [
      found,
      `wipe: the installer image ${INSTALLER} cannot be pulled (Error response from daemon: Get "https://ghcr.io/v2/": dial tcp: lookup ghcr.io: no such host); nothing wiped`,
    ]);
  });

  it('when the disk image of a provision-image run does not answer', async () => {
    const e = (url: string) => env(nvme, { INSTALLER_IMAGE: '', IMAGE_URL: url });
    const found = `wipe: ${nvme} reports the serial S4EVNF0M123456`;
    await refused(e(files.url('/nixos.raw.zst')), [found, `wipe: the image ${files.url('/nixos.raw.zst')} cannot be fetched (HTTP 404); nothing wiped`]);
    const gone = await new Files().start();
    await gone.stop();
    await refused(e(gone.url('/nixos.raw.zst')), [found, `wipe: the image ${gone.url('/nixos.raw.zst')} cannot be fetched (ECONNREFUSED); nothing wiped`]);
  });
});

describe('wipe-disk without work', () => {
  it('skips a run whose WIPE is not true, and writes nothing', async () => {
    const nvme = await disk({ name: 'nvme0n1', transport: 'nvme', dev: '259:0', serial: 'S4EVNF0M123456' });
    await rig.attest();
    const r = await rig.perform('wipe-disk', wipeDisk, env(nvme, { WIPE: 'false' }));
    expect(r).toEqual({ code: 0, lines: ['wipe: WIPE is "false", not true: nothing wiped'] });
    expect(sha256sum(nvme)).toBe(disks.get(nvme));
    expect(rig.calls).toEqual([]);
  });

  it('checks a provision-image URL by HEAD, or by its first byte where HEAD is refused, and then wipes', async () => {
    const nvme = await disk({ name: 'nvme0n1', transport: 'nvme', dev: '259:0', serial: 'S4EVNF0M123456' });
    await rig.attest();
    files.served.set('/nixos.raw', Buffer.from('image'));
    files.noHead = true;
    const r = await rig.perform('wipe-disk', wipeDisk, env(nvme, { INSTALLER_IMAGE: '', IMAGE_URL: files.url('/nixos.raw') }));
    expect(r.lines).toContain(`wipe: the image ${files.url('/nixos.raw')} answers`);
    expect(files.requests.map((q) => q.method)).toEqual(['HEAD', 'GET']);
    expect(r.code).toBe(0);
    expect(sha256sum(nvme)).not.toBe(disks.get(nvme));
  });
});

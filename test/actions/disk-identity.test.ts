import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identify } from '../../images/tink-reprovision-tools/disk/identity.js';
import { readDisks } from '../../images/tink-reprovision-tools/disk/sysfs.js';
import { DISK_LINES, WHAT_IS_THERE } from '../../images/tink-reprovision-tools/lines/disk.js';
import { addDisk } from './fake-sysfs.js';

let sys: string;
beforeAll(async () => {
  sys = await mkdtemp(join(tmpdir(), 'fleet-sysfs-'));
  await addDisk(sys, { name: 'vda', transport: 'virtio', dev: '254:0', serial: 'VIRTIO-1', partitions: [{ name: 'vda1', dev: '254:1' }] });
  await addDisk(sys, { name: 'nvme0n1', transport: 'nvme', dev: '259:0', serial: 'S4EVNF0M123456', discard: true });
  await addDisk(sys, { name: 'sda', transport: 'sata', dev: '8:0', serial: 'QM00005' });
  await addDisk(sys, { name: 'sdb', transport: 'usb', dev: '8:16', serial: 'USB-STICK-9', removable: true });
  await addDisk(sys, { name: 'sdc', transport: 'sata', dev: '8:32', serial: 'WD-GARBLED', vpdPg80: Buffer.from([0, 0x80, 0, 40, 1, 2]) });
  await addDisk(sys, { name: 'loop0', transport: 'loop', dev: '7:0', serial: 'LOOP-0' });
  // zram sits under devices/virtual like loop, and is never a disk to install to.
  await mkdir(join(sys, 'devices/virtual/block/zram0'), { recursive: true });
  await writeFile(join(sys, 'devices/virtual/block/zram0/dev'), '253:0\n');
  await symlink('../devices/virtual/block/zram0', join(sys, 'block/zram0'));
});
afterAll(() => rm(sys, { recursive: true, force: true }));

describe('disks read from sysfs', () => {
  it("finds each transport's serial where QEMU's disks report it", async () => {
    const disks = await readDisks(sys, { allowLoop: false });
    const by = Object.fromEntries(disks.map((d) => [d.name, d]));
    expect(Object.keys(by)).toEqual(['nvme0n1', 'sda', 'sdb', 'sdc', 'vda']);
    expect(by.vda).toMatchObject({ dev: '254:0', serials: ['VIRTIO-1'], usb: false, removable: false, partitions: [{ name: 'vda1', dev: '254:1' }] });
    // NVMe: the controller's padded serial, the same again in the wwid.
    expect(by.nvme0n1).toMatchObject({ serials: ['S4EVNF0M123456'], model: 'QEMU NVMe Ctrl', discard: true });
    // SATA: no serial attribute; VPD page 0x80 and the t10 wwid agree.
    expect(by.sda).toMatchObject({ serials: ['QM00005'], model: 'QEMU HARDDISK', usb: false });
    // USB: the serial lives on the USB device up the path, not on the root hub above it.
    expect(by.sdb).toMatchObject({ serials: ['USB-STICK-9'], usb: true, removable: true });
    // A VPD page that lies about its length is no serial; the wwid still names the disk.
    expect(by.sdc!.serials).toEqual(['WD-GARBLED']);
    expect(by.vda!.sizeBytes).toBe(64 << 20);
  });

  it('skips loop devices unless allowed, and zram always', async () => {
    const names = (await readDisks(sys, { allowLoop: true })).map((d) => d.name);
    expect(names).toContain('loop0');
    expect(names).not.toContain('zram0');
  });
});

describe('which disk the declaration names', () => {
  it('names the one fixed disk that reports the serial and sits at the declared path', async () => {
    const disks = await readDisks(sys, { allowLoop: false });
    expect(identify(disks, 'QM00005', '/dev/sda', '8:0')).toMatchObject({ ok: true, disk: { name: 'sda' } });
  });

  it('says what the declared path is when the serial is elsewhere: another disk, a partition, nothing, a stranger', async () => {
    const disks = await readDisks(sys, { allowLoop: false });
    const reason = (dev: string | null) => (identify(disks, 'QM00005', '/dev/sdx', dev) as { reason: string }).reason;
    const elsewhere = (what: string) => DISK_LINES.elsewhere('/dev/sdx', what, 'QM00005', 'sda');
    expect(reason('254:0')).toBe(elsewhere(WHAT_IS_THERE.disk('VIRTIO-1')));
    expect(reason('254:1')).toBe(elsewhere(WHAT_IS_THERE.partition('vda1', WHAT_IS_THERE.disk('VIRTIO-1'))));
    expect(reason(null)).toBe(elsewhere(WHAT_IS_THERE.missing()));
    expect(reason('7:0')).toBe(elsewhere(WHAT_IS_THERE.stranger('7:0')));
  });
});

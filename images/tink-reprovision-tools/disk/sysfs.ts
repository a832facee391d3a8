import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Disk, Partition } from './disk.js';
import { cleanSerial, wwidSerial } from './serial.js';
import { vpdPg80Serial } from './vpd.js';

/**
 * Every whole disk in `<sysRoot>/block`, with its identity. RAM disks, zram and loop devices are
 * never install disks (nor is anything else under devices/virtual); `allowLoop` lets the real-disk
 * tests use loop devices.
 */
export async function readDisks(sysRoot: string, opts: { allowLoop: boolean }): Promise<Disk[]> {
  const blockDir = join(sysRoot, 'block');
  const names = (await readdir(blockDir)).sort();
  const disks: Disk[] = [];
  for (const name of names) {
    const loop = name.startsWith('loop');
    if (/^(ram|zram)/.test(name) || (loop && !opts.allowLoop)) continue;
    const dir = await realpath(join(blockDir, name));
    if (dir.includes('/devices/virtual/') && !loop) continue;
    disks.push(await readDisk(sysRoot, name, dir));
  }
  return disks;
}

async function readDisk(sysRoot: string, name: string, dir: string): Promise<Disk> {
  const usbDevice = await usbAncestor(sysRoot, dir);
  const partitions = await readPartitions(dir);
  const holders = [...(await list(join(dir, 'holders')))];
  for (const p of partitions) holders.push(...(await list(join(dir, p.name, 'holders'))));
  return {
    name,
    dev: (await text(join(dir, 'dev'))) ?? '',
    serials: await serials(dir, usbDevice),
    model: (await text(join(dir, 'device', 'model'))) ?? (usbDevice ? await text(join(usbDevice, 'product')) : null),
    sizeBytes: Number((await text(join(dir, 'size'))) ?? 0) * 512,
    removable: (await text(join(dir, 'removable'))) === '1',
    usb: usbDevice !== null,
    readOnly: (await text(join(dir, 'ro'))) === '1',
    holders,
    partitions,
    discard: Number((await text(join(dir, 'queue', 'discard_max_bytes'))) ?? 0) > 0,
  };
}

/**
 * The serials in the order a person trusts them. A source that holds garbage counts as no serial
 * (the disk may still be named by another source); the declared serial must match one exactly.
 */
async function serials(dir: string, usbDevice: string | null): Promise<string[]> {
  const found: Array<string | null> = [];
  const attempt = (f: () => string | null) => {
    try {
      found.push(f());
    } catch {
      found.push(null);
    }
  };
  for (const f of ['serial', 'device/serial']) {
    const t = await text(join(dir, f));
    if (t !== null) attempt(() => cleanSerial(t));
  }
  const vpd = await readFile(join(dir, 'device', 'vpd_pg80')).catch(() => null);
  if (vpd) attempt(() => vpdPg80Serial(vpd));
  for (const f of ['wwid', 'device/wwid']) {
    const t = await text(join(dir, f));
    if (t !== null) attempt(() => wwidSerial(t));
  }
  if (usbDevice) {
    const t = await text(join(usbDevice, 'serial'));
    if (t !== null) attempt(() => cleanSerial(t));
  }
  return [...new Set(found.filter((s): s is string => s !== null))];
}

/** The USB device a disk hangs off: up its realpath, the nearest directory with `idVendor`. */
async function usbAncestor(sysRoot: string, dir: string): Promise<string | null> {
  const top = join(await realpath(sysRoot), 'devices');
  for (let d = dirname(dir); d.startsWith(top) && d !== top; d = dirname(d)) {
    if (await stat(join(d, 'idVendor')).catch(() => null)) return d;
  }
  return null;
}

async function readPartitions(dir: string): Promise<Partition[]> {
  const parts: Partition[] = [];
  for (const entry of await list(dir)) {
    if ((await text(join(dir, entry, 'partition'))) === null) continue;
    parts.push({ name: entry, dev: (await text(join(dir, entry, 'dev'))) ?? '' });
  }
  return parts;
}

async function text(path: string): Promise<string | null> {
  const t = await readFile(path, 'latin1').catch(() => null);
  return t === null ? null : t.trim();
}

async function list(path: string): Promise<string[]> {
  return (await readdir(path).catch(() => [] as string[])).sort();
}

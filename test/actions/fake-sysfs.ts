import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';

/**
 * A sysfs tree laid out as the kernel lays out QEMU's disks, as measured in a guest:
 * /sys/block/<name> links into /sys/devices, and each transport keeps its serial where the real one
 * does (virtio-blk in serial, NVMe in device/serial and wwid, SATA only in device/vpd_pg80 and wwid,
 * USB storage on the USB device up the realpath).
 */
export type Transport = 'virtio' | 'nvme' | 'sata' | 'usb' | 'loop';

export interface FakeDisk {
  name: string;
  transport: Transport;
  dev: string;
  serial?: string;
  model?: string;
  sizeBytes?: number;
  removable?: boolean;
  ro?: boolean;
  holders?: string[];
  partitions?: Array<{ name: string; dev: string; holders?: string[] }>;
  discard?: boolean;
  /** SATA: the raw VPD page 0x80, instead of one made from `serial`. */
  vpdPg80?: Buffer;
}

export function vpdPage(serial: string): Buffer {
  const s = Buffer.from(serial.padStart(20, ' '), 'latin1');
  return Buffer.concat([Buffer.from([0x00, 0x80, s.length >> 8, s.length & 0xff]), s]);
}

let pci = 3;

/** Adds one disk to the tree at `root` (the fake /sys). */
export async function addDisk(root: string, d: FakeDisk): Promise<void> {
  const slot = `0000:00:${(pci++).toString(16).padStart(2, '0')}.0`;
  const devices = join(root, 'devices');
  let blockDir: string;
  const files: Record<string, string | Buffer> = {};
  switch (d.transport) {
    case 'virtio':
      blockDir = join(devices, 'pci0000:00', slot, `virtio${pci}`, 'block', d.name);
      if (d.serial !== undefined) files.serial = d.serial;
      break;
    case 'nvme': {
      const ctrl = join(devices, 'pci0000:00', slot, 'nvme', 'nvme0');
      blockDir = join(ctrl, d.name);
      // The controller pads its 20-byte serial with spaces; wwid carries it again, in hex.
      if (d.serial !== undefined) {
        await put(join(ctrl, 'serial'), `${d.serial.padEnd(20, ' ')}\n`);
        files.wwid = `nvme.1b36-${Buffer.from(d.serial.padEnd(20, ' ')).toString('hex')}-${Buffer.from('QEMU NVMe Ctrl').toString('hex')}-00000001`;
      }
      await put(join(ctrl, 'model'), `${d.model ?? 'QEMU NVMe Ctrl'}\n`);
      await symlink(relative(blockDir, ctrl), await dirOf(join(blockDir, 'device')));
      break;
    }
    case 'sata':
    case 'usb': {
      const host =
        d.transport === 'sata'
          ? join(devices, 'pci0000:00', slot, 'ata1', 'host0', 'target0:0:0', '0:0:0:0')
          : join(devices, 'pci0000:00', slot, 'usb1', '1-1', '1-1:1.0', 'host2', 'target2:0:0', '2:0:0:0');
      blockDir = join(host, 'block', d.name);
      await put(join(host, 'model'), `${(d.model ?? 'QEMU HARDDISK').padEnd(16, ' ')}\n`);
      if (d.transport === 'sata') {
        // libata: no serial attribute; the serial in VPD page 0x80 and at the end of the t10 wwid.
        if (d.vpdPg80) await put(join(host, 'vpd_pg80'), d.vpdPg80);
        else if (d.serial !== undefined) await put(join(host, 'vpd_pg80'), vpdPage(d.serial));
        if (d.serial !== undefined) await put(join(host, 'wwid'), `t10.ATA     ${'QEMU HARDDISK'.padEnd(40, ' ')}${d.serial}\n`);
      } else {
        // The USB device itself (the directory with idVendor) holds the serial; the root hub above it has one too.
        const hub = join(devices, 'pci0000:00', slot, 'usb1');
        await put(join(hub, 'idVendor'), '1d6b\n');
        await put(join(hub, 'serial'), `${slot}\n`);
        const usbDev = join(hub, '1-1');
        await put(join(usbDev, 'idVendor'), '46f4\n');
        await put(join(usbDev, 'product'), 'QEMU USB HARDDRIVE\n');
        if (d.serial !== undefined) await put(join(usbDev, 'serial'), `${d.serial}\n`);
      }
      await symlink(relative(blockDir, host), await dirOf(join(blockDir, 'device')));
      break;
    }
    case 'loop':
      blockDir = join(devices, 'virtual', 'block', d.name);
      if (d.serial !== undefined) files.serial = d.serial;
      break;
  }
  Object.assign(files, {
    dev: `${d.dev}\n`,
    size: `${Math.floor((d.sizeBytes ?? 64 << 20) / 512)}\n`,
    removable: d.removable ? '1\n' : '0\n',
    ro: d.ro ? '1\n' : '0\n',
    'queue/discard_max_bytes': d.discard ? '2147450880\n' : '0\n',
  });
  for (const [f, body] of Object.entries(files)) await put(join(blockDir, f), body);
  await mkdir(join(blockDir, 'holders'), { recursive: true });
  for (const h of d.holders ?? []) await put(join(blockDir, 'holders', h), '');
  for (const [i, p] of (d.partitions ?? []).entries()) {
    await put(join(blockDir, p.name, 'partition'), `${i + 1}\n`);
    await put(join(blockDir, p.name, 'dev'), `${p.dev}\n`);
    await mkdir(join(blockDir, p.name, 'holders'), { recursive: true });
    for (const h of p.holders ?? []) await put(join(blockDir, p.name, 'holders', h), '');
  }
  await symlink(relative(join(root, 'block'), blockDir), await dirOf(join(root, 'block', d.name)));
}

/** The machine's SMBIOS system UUID, as image-to-disk reads it for fleet-seed.json. */
export async function setProductUuid(root: string, uuid: string): Promise<void> {
  await put(join(root, 'class/dmi/id/product_uuid'), `${uuid}\n`);
}

async function put(path: string, body: string | Buffer): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, body);
}

async function dirOf(path: string): Promise<string> {
  await mkdir(dirname(path), { recursive: true });
  return path;
}

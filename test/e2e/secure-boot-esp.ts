/**
 * A real Secure Boot chain for an e2e machine: OVMF's secboot code with Microsoft's keys enrolled
 * (OVMF_VARS_4M.ms.fd: SecureBoot=1 in the event log) → Debian's shim (signed by Microsoft's UEFI
 * CA) → Debian's GRUB → Debian's kernel (both signed by Debian's CA, which shim embeds), served
 * to the firmware as a read-only FAT folder. The kernel and initrd are the run's own.
 *
 * Measured with Debian 12 (shim-signed 1.51~1+deb12u1+16.1-2~deb12u1, grub-efi-amd64-signed
 * 1+2.06+13+deb12u2, linux-image-6.1.0-57-amd64), `fleet eventlog` replaying every PCR the guest read:
 *   PCR 7: SecureBoot=01, PK (Debian's), KEK, db (Microsoft's), dbx; then the authorities db (the
 *          UEFI CA that signed shim), SbatLevel and MokListRT (shim's built-in Debian CA, once)
 *   PCR 4: \EFI\BOOT\BOOTX64.EFI, \EFI\BOOT\grubx64.efi, then the kernel twice ("image at …"),
 *          all Authenticode SHA-256 digests, not file digests
 *   PCR 14: MokList, MokListX, MokListTrusted
 *   PCR 8: each grub command, with the device, e.g. `source (hd0,msdos1)/EFI/debian/grub.cfg`, and
 *          `kernel_cmdline: /vmlinuz <cmdline>`;  PCR 9: grub.cfg, /vmlinuz, /initrd.img (file SHA-256)
 *   PCR 1: the Boot#### variables, whose device paths name PCI slots: keep the device layout fixed.
 * The kernel locks itself down (integrity): only Debian-signed modules load, which the package's are.
 */
import { copyFile, link, mkdir, rm, writeFile } from 'node:fs/promises';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { extractPackage } from './parts/debian.js';

/** OVMF's Secure Boot build: it needs SMM, and a flash only SMM code may write (else the OS could rewrite db). */
export const SECURE_BOOT_FIRMWARE = {
  machine: 'q35,smm=on',
  extraArgs: ['-global', 'driver=cfi.pflash01,property=secure,value=on'],
  code: '/usr/share/OVMF/OVMF_CODE_4M.secboot.fd',
  /** The template each machine copies: Microsoft's KEK and db, SecureBoot on (shim adds SbatLevel on the first boot). */
  vars: '/usr/share/OVMF/OVMF_VARS_4M.ms.fd',
} as const;

/** Where the signed loaders sit inside their extracted packages. */
const SHIM = 'shim-signed/usr/lib/shim/shimx64.efi.signed';
const GRUB = 'grub-efi-amd64-signed/usr/lib/grub/x86_64-efi-signed/grubx64.efi.signed';

export interface SignedLoaders {
  shim: string;
  grub: string;
}

/**
 * Debian's signed shim and GRUB, taken apart into `cacheRoot` (apt-get download + dpkg-deb -x)
 * unless already there. Only these two: no MokManager (mmx64.efi) is needed while no MOK request
 * is pending, and fbx64.efi must stay off the ESP (shim would run it and rewrite boot entries).
 * Synchronous and not safe to run twice at once on one cacheRoot: call it once per test run.
 */
export function prepareSignedLoaders(cacheRoot: string): SignedLoaders {
  mkdirSync(cacheRoot, { recursive: true });
  for (const pkg of ['shim-signed', 'grub-efi-amd64-signed']) {
    if (!existsSync(join(cacheRoot, pkg))) extractPackage(pkg, join(cacheRoot, pkg), cacheRoot);
  }
  const loaders = { shim: join(cacheRoot, SHIM), grub: join(cacheRoot, GRUB) };
  for (const f of Object.values(loaders))
    if (!existsSync(f)) throw new Error(`no ${f}: remove ${cacheRoot} to extract shim-signed and grub-efi-amd64-signed again`);
  return loaders;
}

export interface EspOptions {
  loaders: SignedLoaders;
  /** Debian's signed vmlinuz: shim refuses anything not signed by Debian's CA (or a MOK). */
  kernel: string;
  initrd: string;
  /** Kernel command line; it lands in PCR 8, so keep it fixed per scenario. */
  cmdline: string;
  /** Made afresh; QEMU reads it once, at its start. */
  espDir: string;
}

/**
 * Lays out the ESP folder:
 *   \EFI\BOOT\BOOTX64.EFI   shim (the removable-media path: no Boot#### entry needed)
 *   \EFI\BOOT\grubx64.efi   grub (shim loads it from its own directory)
 *   \EFI\debian\grub.cfg    grub's embedded config sources $prefix/grub.cfg, prefix = /EFI/debian
 *   \vmlinuz, \initrd.img   fixed names: they are in PCR 8 (grub commands) and PCR 9
 */
export async function layoutEsp(o: EspOptions): Promise<void> {
  // grub's parser would interpret quotes, $, ;, # and the like: allow only plain words.
  if (!/^[\w .,=:/@+%-]*$/.test(o.cmdline)) throw new Error(`kernel command line ${JSON.stringify(o.cmdline)} has characters grub would interpret`);
  // vvfat reads the folder once at QEMU's start (FAT16, ~500 MB at most); a comma would split -drive.
  if (o.espDir.includes(',')) throw new Error(`${o.espDir}: a comma would split QEMU's -drive option`);
  await rm(o.espDir, { recursive: true, force: true });
  await mkdir(join(o.espDir, 'EFI/BOOT'), { recursive: true });
  await mkdir(join(o.espDir, 'EFI/debian'), { recursive: true });
  await Promise.all([
    place(o.loaders.shim, join(o.espDir, 'EFI/BOOT/BOOTX64.EFI')),
    place(o.loaders.grub, join(o.espDir, 'EFI/BOOT/grubx64.efi')),
    place(o.kernel, join(o.espDir, 'vmlinuz')),
    place(o.initrd, join(o.espDir, 'initrd.img')),
    // No menu, no timeout: the commands run as the config is sourced, `boot` ends it.
    writeFile(join(o.espDir, 'EFI/debian/grub.cfg'), `linux /vmlinuz ${o.cmdline}\ninitrd /initrd.img\nboot\n`),
  ]);
}

/**
 * The ESP folder as a read-only FAT disk on virtio-blk, first in boot order. readonly=on is
 * required: vvfat opens read-write by default and virtio-blk then refuses it. It has no serial,
 * so the guest sees one more, serial-less, virtio disk.
 */
export function espArgs(espDir: string, driveId = 'esp'): string[] {
  return ['-drive', `if=none,id=${driveId},format=raw,readonly=on,file=fat:${espDir}`, '-device', `virtio-blk-pci,drive=${driveId},bootindex=0`];
}

/** A hard link when it can (the files are large and read-only to the guest), else a copy. */
async function place(from: string, to: string): Promise<void> {
  await link(from, to).catch(() => copyFile(from, to));
}

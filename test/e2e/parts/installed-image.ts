/**
 * The installed system a disk-image provision writes: a raw GPT disk image whose one partition is
 * an EFI System Partition holding \EFI\BOOT\BOOTX64.EFI, a UKI (uki.ts) of the run's Debian kernel
 * and a busybox initramfs whose /init (guest/first-boot-init.sh) is the node's first boot: it takes
 * the seed from fleetd with images/first-boot/fleet-seed-fetch.sh. Built without mounting (sgdisk,
 * mkfs.vfat at an offset, mtools) and kept in the cache under a hash of everything that goes in.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractPackage } from './debian.js';
import { moduleLoadOrder, type Kernel } from './kernel.js';
import { buildUki } from './uki.js';

export interface InstalledImage {
  file: string;
  sha256: string;
  bytes: number;
  /** Its UKI alone: the boot loader the Talos installer double installs, so a Talos disk boots the same first boot. */
  uki: string;
  /** systemd's EFI stub its UKI is built on (a HookOS UKI is built on it too). */
  stub: string;
}

const INIT = fileURLToPath(new URL('../guest/first-boot-init.sh', import.meta.url));
const FETCH = fileURLToPath(new URL('../../../images/first-boot/fleet-seed-fetch.sh', import.meta.url));
const STUB = 'systemd-boot-efi/usr/lib/systemd/boot/efi/linuxx64.efi.stub';
/** The disk, the ESP's FAT, the NIC and the 9p shares (the userland and the CA), efivarfs for the stub's variables. */
const MODULES = ['nvme', 'vfat', 'nls_cp437', 'nls_ascii', 'virtio_pci', 'virtio_net', '9p', '9pnet_virtio', 'efivarfs'];
/** no_timer_check: under TCG on a loaded host the IO-APIC timer check can miss its ticks and panic. */
const CMDLINE = 'console=ttyS0 loglevel=4 panic=-1 no_timer_check';
const OS_RELEASE = 'ID=fleet-e2e\nNAME="fleet e2e installed image"\nPRETTY_NAME="fleet e2e installed image (first boot)"\n';
const MIB = 1 << 20;
/** The ESP, from 1 MiB: the UKI (~12 MiB: the kernel 8, the initramfs 4) and room for the seed; the image ends 1 MiB after it (the backup GPT). */
const ESP_MIB = 16;
/** How long a build nobody uses stays in the cache. */
const UNUSED_MS = 24 * 3600_000;
const MTOOLS = { ...process.env, MTOOLS_SKIP_CHECK: '1' };

const sh = (cmd: string, args: string[]) => execFileSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], env: MTOOLS });

export function prepareInstalledImage(cacheDir: string, kernel: Kernel): InstalledImage {
  mkdirSync(cacheDir, { recursive: true });
  const stubTree = join(cacheDir, 'systemd-boot-efi');
  if (!existsSync(stubTree)) extractPackage('systemd-boot-efi', stubTree, cacheDir);
  const stub = join(cacheDir, STUB);
  const modules = moduleLoadOrder(kernel.modulesDir, MODULES);
  const key = createHash('sha256')
    .update(kernel.pkg)
    .update(readFileSync(stub))
    .update(readFileSync(INIT))
    .update(readFileSync(FETCH))
    .update(modules.join('\n'))
    .update(CMDLINE)
    .update(OS_RELEASE)
    .update(String(ESP_MIB))
    .digest('hex')
    .slice(0, 16);
  const out = join(cacheDir, `installed-${key}.raw`);
  const ukiOut = join(cacheDir, `installed-${key}.efi`);
  if (!existsSync(out) || !existsSync(ukiOut)) {
    const work = mkdtempSync(join(cacheDir, 'build-'));
    try {
      const initrd = join(work, 'initrd.cpio');
      packInitramfs(kernel, modules, initrd, join(work, 'root'));
      const uki = join(work, 'BOOTX64.EFI');
      buildUki({ stub, kernel: kernel.vmlinuz, initrd, cmdline: CMDLINE, osRelease: OS_RELEASE }, uki, work);
      writeDisk(uki, `${out}.part`);
      copyFileSync(uki, `${ukiOut}.part`);
      renameSync(`${ukiOut}.part`, ukiOut);
      renameSync(`${out}.part`, out);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  // Other builds go once no run has used them for a day: a run of another checkout may still boot one.
  const now = new Date();
  for (const f of [out, ukiOut]) utimesSync(f, now, now);
  for (const f of readdirSync(cacheDir)) {
    const p = join(cacheDir, f);
    if (/^installed-[0-9a-f]{16}\.(raw|efi)$/.test(f) && p !== out && p !== ukiOut && now.getTime() - statSync(p).mtimeMs > UNUSED_MS) rmSync(p);
  }
  const body = readFileSync(out);
  return { file: out, sha256: createHash('sha256').update(body).digest('hex'), bytes: body.length, uki: ukiOut, stub };
}

/** busybox, the modules in load order, /init and the fetch script, as an uncompressed newc cpio. */
function packInitramfs(kernel: Kernel, modules: string[], out: string, root: string): void {
  for (const d of ['bin', 'proc', 'sys', 'dev', 'newroot']) mkdirSync(join(root, d), { recursive: true });
  copyFileSync(kernel.busybox, join(root, 'bin/busybox'));
  for (const m of modules) {
    mkdirSync(dirname(join(root, 'lib/modules', m)), { recursive: true });
    copyFileSync(join(kernel.modulesDir, m), join(root, 'lib/modules', m));
  }
  writeFileSync(join(root, 'modules.load'), `${modules.join('\n')}\n`);
  copyFileSync(INIT, join(root, 'init'));
  chmodSync(join(root, 'init'), 0o755);
  copyFileSync(FETCH, join(root, 'fleet-seed-fetch.sh'));
  execFileSync('sh', ['-c', `cd "$1" && find . | "$2" cpio -o -H newc > "$3"`, 'sh', root, kernel.busybox, out], { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A GPT disk image: partition 1 the ESP (FAT16, label ESP) with the UKI at the removable-media path. */
function writeDisk(uki: string, path: string): void {
  if (statSync(uki).size > (ESP_MIB - 1) * MIB) throw new Error(`the UKI (${statSync(uki).size} bytes) leaves no room on a ${ESP_MIB} MiB ESP`);
  writeFileSync(path, '');
  sh('truncate', ['-s', String((ESP_MIB + 2) * MIB), path]);
  sh('sgdisk', ['-n', `1:2048:+${ESP_MIB}M`, '-t', '1:EF00', '-c', '1:ESP', path]);
  sh('mkfs.vfat', ['-F', '16', '--offset', '2048', '-n', 'ESP', path, String(ESP_MIB * 1024)]);
  const fat = `${path}@@${MIB}`;
  sh('mmd', ['-i', fat, '::/EFI', '::/EFI/BOOT']);
  sh('mcopy', ['-i', fat, uki, '::/EFI/BOOT/BOOTX64.EFI']);
}

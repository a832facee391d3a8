// TEST DOUBLE of the Talos installer (siderolabs/installer's /bin/installer): the entrypoint of
// the installer image a real Docker engine runs in the action tests (test/docker/installer-image.ts).
// `node talos-installer.mjs install --disk D --platform metal --config URL`.
import { execFileSync } from 'node:child_process';
import { closeSync, copyFileSync, mkdirSync, openSync, readSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const err = (s) => process.stderr.write(`${s}\n`);

/**
 * Plays the Talos installer (entrypoint /bin/installer, `install --disk D --platform metal --config
 * URL`): it refuses a disk that is not empty as the real one does, else writes a small Talos layout
 * (GPT: EFI, META, STATE; a FAT on EFI with EFI/BOOT/BOOTX64.EFI and the kernel command line with
 * talos.config). `behaviour` "broken" fails mid-partitioning; `privileged` false cannot open the disk.
 * `loader`: a real boot loader to install as BOOTX64.EFI (the QEMU tests' UKI, whose first boot
 * fetches talos.config as Talos would); without it, a placeholder.
 */
export function installer(args, { behaviour = 'ok', privileged = true, tmp, loader }) {
  const log = (s) => err(`2025/03/01 10:00:00 ${s}`);
  const usage = [
    'Usage:',
    '  installer install [flags]',
    '',
    'Flags:',
    '  -h, --help   help for install',
    '',
    'Global Flags:',
    '      --config string                  The value of talos.config',
    '      --disk string                    The path to the disk to install to',
    '      --extra-kernel-arg stringArray   Extra argument to pass to the kernel',
    '      --platform string                The value of talos.platform',
    '',
  ];
  const fail = (message) => {
    err(`Error: ${message}`);
    for (const l of usage) err(l);
    err(message);
    return 1;
  };
  const [sub, ...flags] = args;
  if (sub !== 'install') return fail(`unknown command "${sub}" for "installer"`);
  const o = {};
  for (let k = 0; k < flags.length; k++) {
    const m = /^--(config|disk|platform|extra-kernel-arg)(?:=(.*))?$/.exec(flags[k]);
    if (!m) return fail(`unknown flag: ${flags[k]}`);
    o[m[1]] = m[2] ?? flags[++k];
  }
  log('running Talos installer v1.9.5');
  if (!o.disk) return fail('install disk is required');
  if (o.platform !== 'metal') return fail(`platform mismatch: ${o.platform}`);
  if (!privileged) return fail(`failed to open blockdevice ${o.disk}: open ${o.disk}: operation not permitted`);
  if (behaviour === 'broken') {
    log(`kernel command line: talos.platform=${o.platform} talos.config=${o.config}`);
    log('created EFI (C12A7328-F81F-11D2-BA4B-00A0C93EC93B) size 104857600 bytes');
    return fail('failed to create partitions: failed to write GPT: failed to add partition 1: invalid argument');
  }
  const found = probe(o.disk);
  if (found) return fail(`failed to perform disk operations: disk ${o.disk} is not empty, skipping install, detected "${found}"`);
  const sh = (cmd, ...a) => {
    try {
      execFileSync(cmd, a, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, MTOOLS_SKIP_CHECK: '1' } });
    } catch (e) {
      throw new Error(
        `${cmd}: ${String(e.stderr ?? e.message)
          .trim()
          .split('\n')
          .at(-1)}`,
      );
    }
  };
  try {
    writeLayout(o, sh, log, tmp, loader);
  } catch (e) {
    return fail(`failed to perform disk operations: ${e.message}`);
  }
  log('installation of v1.9.5 complete');
  return 0;
}

/** Talos's layout on the disk: GPT, the ESP's FAT (through the whole disk at the ESP's offset), the loader and its command line. */
function writeLayout(o, sh, log, tmp, loader) {
  sh(
    'sgdisk',
    '-n',
    '1:2048:+16M',
    '-t',
    '1:EF00',
    '-c',
    '1:EFI',
    '-n',
    '2:0:+1M',
    '-t',
    '2:8300',
    '-c',
    '2:META',
    '-n',
    '3:0:0',
    '-t',
    '3:8300',
    '-c',
    '3:STATE',
    o.disk,
  );
  log('created EFI (C12A7328-F81F-11D2-BA4B-00A0C93EC93B) size 16777216 bytes');
  log('created META (0FC63DAF-8483-4772-8E79-3D69D8477DE4) size 1048576 bytes');
  // -I: the disk has partitions now (a real disk's kernel sees them); the FAT goes at the ESP's offset.
  sh('mkfs.vfat', '-I', '-F', '16', '--offset', '2048', '-n', 'EFI', o.disk, String(16 * 1024));
  log(`formatting the partition "${o.disk}1" as "vfat" with label "EFI"`);
  const esp = `${o.disk}@@${2048 * 512}`;
  mkdirSync(tmp, { recursive: true });
  if (loader) copyFileSync(loader, join(tmp, 'BOOTX64.EFI'));
  else writeFileSync(join(tmp, 'BOOTX64.EFI'), 'fake systemd-boot\n');
  writeFileSync(join(tmp, 'cmdline'), `talos.platform=${o.platform} talos.config=${o.config ?? 'none'}\n`);
  sh('mmd', '-i', esp, '::/EFI', '::/EFI/BOOT', '::/EFI/Talos');
  sh('mcopy', '-i', esp, join(tmp, 'BOOTX64.EFI'), '::/EFI/BOOT/BOOTX64.EFI');
  sh('mcopy', '-i', esp, join(tmp, 'cmdline'), '::/EFI/Talos/cmdline');
}

/** What blkid would detect on the disk, as the installer's emptiness check sees it. */
function probe(disk) {
  const head = Buffer.alloc(8192);
  const fd = openSync(disk, 'r');
  readSync(fd, head, 0, head.length, 0);
  closeSync(fd);
  if (head.toString('latin1', 512, 520) === 'EFI PART') {
    const entries = Buffer.alloc(128 * 128);
    const fd2 = openSync(disk, 'r');
    readSync(fd2, entries, 0, entries.length, 1024);
    closeSync(fd2);
    for (let k = 0; k < 128; k++) if (!entries.subarray(k * 128, k * 128 + 16).equals(Buffer.alloc(16))) return 'gpt';
    return null;
  }
  if (head.readUInt16LE(510) === 0xaa55) return 'dos';
  if (head.readUInt16LE(1080) === 0xef53) return 'ext4';
  if (head.toString('latin1', 0, 4) === 'XFSB') return 'xfs';
  return null;
}

// As an image's entrypoint: the image's ENV says how it behaves (FLEET_INSTALLER_BEHAVIOUR) and which loader it installs (FLEET_INSTALLER_LOADER).
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { FLEET_INSTALLER_BEHAVIOUR: behaviour = 'ok', FLEET_INSTALLER_LOADER: loader } = process.env;
  process.exit(installer(process.argv.slice(2), { behaviour, tmp: join(tmpdir(), 'talos-installer-esp'), ...(loader ? { loader } : {}) }));
}

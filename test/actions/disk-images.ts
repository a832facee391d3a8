import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { sparseFile } from './loop.js';

const MIB = 1 << 20;
const sh = (cmd: string, ...args: string[]) =>
  execFileSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, MTOOLS_SKIP_CHECK: '1' } });

/**
 * A disk (or disk image) file holding what an old install leaves: a GPT with an ESP (FAT, with
 * the removable-path loader) and a root partition (ext4, typed Linux root x86-64), and random data
 * between them. Built without a loop device or a mount: sgdisk, mkfs at offsets, mtools.
 */
export async function usedDisk(path: string, bytes = 64 * MIB, opts: { rootType?: string } = {}): Promise<void> {
  await sparseFile(path, bytes, [[40 * MIB, randomBytes(MIB)]]);
  sh('sgdisk', '-n', '1:2048:+16M', '-t', '1:EF00', '-c', '1:ESP', '-n', '2:0:+20M', '-t', `2:${opts.rootType ?? '8304'}`, '-c', '2:root', path);
  sh('mkfs.vfat', '-F', '16', '--offset', '2048', '-n', 'ESP', path, String(16 * 1024));
  sh('mmd', '-i', `${path}@@${2048 * 512}`, '::/EFI', '::/EFI/BOOT');
  const loader = `${path}.loader`;
  execFileSync('sh', ['-c', `printf 'loader of %s\\n' "$1" > "$2"`, 'sh', path, loader]);
  sh('mcopy', '-i', `${path}@@${2048 * 512}`, loader, '::/EFI/BOOT/BOOTX64.EFI');
  sh('rm', loader);
  sh('mkfs.ext4', '-q', '-F', '-L', 'root', '-E', `offset=${(2048 + 16 * 2048) * 512}`, path, `${20 * 1024}k`);
}

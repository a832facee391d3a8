/** What the e2e suite needs on this machine, and why it skips without it. */
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

export const OVMF_CODE = '/usr/share/OVMF/OVMF_CODE_4M.fd';
export const OVMF_VARS = '/usr/share/OVMF/OVMF_VARS_4M.fd';
export const QEMU = 'qemu-system-x86_64';

const onPath = (cmd: string): boolean => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

/** Null when the suite can run, else what is missing (scripts/ensure-deps.mjs installs it as root). */
export function missingHostTools(): string | null {
  // efibootmgr, node, the disk tools and Docker run in the guest: its userland is this machine's, over 9p.
  const missing = [
    QEMU,
    'swtpm',
    'swtpm_setup',
    'apt-get',
    'dpkg-deb',
    'openssl',
    'efibootmgr',
    'mcopy',
    'wipefs',
    'dockerd',
    'docker',
    'docker-registry',
  ].filter((c) => !onPath(c));
  if (!existsSync(OVMF_CODE)) missing.push(OVMF_CODE);
  if (process.getuid?.() !== 0) missing.push('root (apt-get download, 9p of /, QEMU as root)');
  return missing.length ? `the e2e suite needs ${missing.join(', ')}` : null;
}

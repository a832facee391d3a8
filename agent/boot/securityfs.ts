import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { FleetError, errorMessage } from '../../shared/errors.js';
import { SECURITYFS_WHY } from './lines.js';

export const SECURITYFS = '/sys/kernel/security';

/** Whether /proc/mounts (its text) lists a securityfs at `target`. Octal escapes (\040) decoded. */
export function securityfsMounted(mounts: string, target: string): boolean {
  return mounts.split('\n').some((line) => {
    const [, at, type] = line.split(' ');
    return type === 'securityfs' && at?.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))) === target;
  });
}

const mountSecurityfs = async (target: string) => {
  // Loaded only when needed: every module the agent loads delays its first TPM command.
  const { execFile } = await import('node:child_process');
  await promisify(execFile)('mount', ['-t', 'securityfs', 'securityfs', target]);
};

/**
 * The firmware event log is in securityfs, which a container does not get by default: mount it
 * unless it is there. Fails with the reason when it cannot (a container that is not privileged).
 */
export async function ensureSecurityfs(
  opts: { mountsPath?: string; target?: string; mount?: (target: string) => Promise<void> } = {},
): Promise<'mounted' | 'present'> {
  const target = opts.target ?? SECURITYFS;
  const mounts = await readFile(opts.mountsPath ?? '/proc/mounts', 'utf8').catch(() => '');
  if (securityfsMounted(mounts, target)) return 'present';
  try {
    await (opts.mount ?? mountSecurityfs)(target);
  } catch (err) {
    throw new FleetError('securityfs', SECURITYFS_WHY.unmountable(target, errorMessage(err)));
  }
  return 'mounted';
}

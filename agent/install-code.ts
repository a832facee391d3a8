import { readdir, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { writeFileAtomic } from '../shared/fs/atomic-write.js';
import { ATTESTED_FILE, INSTALL_CODE_FILE, WORKER_FLEET_DIR } from '../shared/worker/marker.js';

/** Where HookOS's /worker holds the code; the Template's install action mounts /worker/fleet at /tmp/fleet. */
export const INSTALL_CODE_PATH = join(WORKER_FLEET_DIR, INSTALL_CODE_FILE);

/** Writes the code for the install action: mode 0600, atomically, so it is whole or absent. */
export function writeInstallCode(path: string, code: string): Promise<void> {
  return writeFileAtomic(path, code, 0o600);
}

/**
 * Removes a code and an attestation marker an earlier boot or try left, and any temp copy of a
 * code that a crash mid-write left beside it (writeFileAtomic's `.<name>.<random>.tmp`): only this
 * attestation's pass may leave them.
 */
export async function removeInstallCode(path: string): Promise<void> {
  await rm(path, { force: true });
  await rm(join(dirname(path), ATTESTED_FILE), { force: true });
  const prefix = `.${basename(path)}.`;
  let names: string[];
  try {
    names = await readdir(dirname(path));
  } catch {
    return; // no directory, no leftovers
  }
  for (const n of names) if (n.startsWith(prefix) && n.endsWith('.tmp')) await rm(join(dirname(path), n), { force: true });
}

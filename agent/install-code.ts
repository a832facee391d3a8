import { rm } from 'node:fs/promises';
import { writeFileAtomic } from '../shared/fs/atomic-write.js';

/** Where HookOS's /worker holds the code; the Template's install action mounts /worker/fleet at /tmp/fleet. */
export const INSTALL_CODE_PATH = '/worker/fleet/install_code';

/** Writes the code for the install action: mode 0600, atomically, so it is whole or absent. */
export function writeInstallCode(path: string, code: string): Promise<void> {
  return writeFileAtomic(path, code, 0o600);
}

/** Removes a code an earlier boot or try left: only this attestation's pass may leave one. */
export function removeInstallCode(path: string): Promise<void> {
  return rm(path, { force: true });
}

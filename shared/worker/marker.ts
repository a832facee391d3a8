import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../fs/atomic-write.js';

/**
 * What the agent leaves in HookOS's /worker/fleet for the Template's actions (mounted at
 * /tmp/fleet): the install code, and a marker that this boot passed attestation. wipe-disk
 * refuses unless the marker names the boot it runs in.
 */
export const WORKER_FLEET_DIR = '/worker/fleet';
/** Where the actions see it. */
export const ACTION_FLEET_DIR = '/tmp/fleet';
export const INSTALL_CODE_FILE = 'install_code';
export const ATTESTED_FILE = 'attested';

export interface AttestedMarker {
  /** The kernel's boot id of the boot that passed. */
  bootId: string;
  at: string;
}

export function writeAttestedMarker(dir: string, marker: AttestedMarker): Promise<void> {
  return writeFileAtomic(join(dir, ATTESTED_FILE), `${JSON.stringify(marker)}\n`, 0o600);
}

/** The marker, or null when absent or unreadable: no marker is no pass. */
export async function readAttestedMarker(dir: string): Promise<AttestedMarker | null> {
  try {
    const m = JSON.parse(await readFile(join(dir, ATTESTED_FILE), 'utf8')) as Partial<AttestedMarker>;
    return typeof m.bootId === 'string' && typeof m.at === 'string' ? { bootId: m.bootId, at: m.at } : null;
  } catch {
    return null;
  }
}

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../../shared/fs/atomic-write.js';
import { INSTALL_CODE_FILE, readAttestedMarker } from '../../../shared/worker/marker.js';
import type { ActionIO } from './io.js';

/** The record wipe-disk leaves in /tmp/fleet: which disk it wiped, in which boot. */
export const WIPED_FILE = 'wiped';

export interface WipedRecord {
  bootId: string;
  disk: string;
  serial: string;
  at: string;
}

export async function readBootId(io: ActionIO): Promise<string> {
  return (await readFile(join(io.procRoot, 'sys/kernel/random/boot_id'), 'utf8')).trim();
}

/** Whether the agent's marker names this very boot: only a boot that passed attestation may wipe. */
export async function bootPassedAttestation(io: ActionIO): Promise<boolean> {
  const marker = await readAttestedMarker(io.fleetDir);
  return marker !== null && marker.bootId === (await readBootId(io));
}

/** The install code this boot's attestation answered, or null. It is never printed. */
export async function readInstallCode(io: ActionIO): Promise<string | null> {
  const code = await readFile(join(io.fleetDir, INSTALL_CODE_FILE), 'utf8').catch(() => '');
  return code.trim() || null;
}

export function writeWipedRecord(io: ActionIO, record: WipedRecord): Promise<void> {
  return writeFileAtomic(join(io.fleetDir, WIPED_FILE), `${JSON.stringify(record)}\n`, 0o600);
}

/** The record, or null when absent or unreadable (a new boot may have none, or an earlier boot's). */
export async function readWipedRecord(io: ActionIO): Promise<WipedRecord | null> {
  try {
    const r = JSON.parse(await readFile(join(io.fleetDir, WIPED_FILE), 'utf8')) as Partial<WipedRecord>;
    return typeof r.bootId === 'string' && typeof r.disk === 'string' && typeof r.serial === 'string' && typeof r.at === 'string'
      ? { bootId: r.bootId, disk: r.disk, serial: r.serial, at: r.at }
      : null;
  } catch {
    return null;
  }
}

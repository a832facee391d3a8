import { mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { FleetError, errorMessage } from '../../shared/errors.js';

/** What holds a state directory for one fleetd: released by the kernel when its process ends, however. */
export interface StateLock {
  release(): void;
}

const LOCK_FILE = 'fleetd.lock';
const PID_FILE = 'fleetd.pid';

/**
 * Takes the state directory for this fleetd, or refuses: two fleetds on one state would hand out
 * codes each other cannot see. The lock is SQLite's own on a file of its own (an exclusive
 * locking-mode connection that wrote once), which is a POSIX lock the kernel drops when the
 * process dies, so a SIGKILLed fleetd leaves nothing behind. The pid file only says who holds it.
 */
export async function lockStateDir(stateDir: string, pid = process.pid): Promise<StateLock> {
  let db: Database.Database;
  try {
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    db = new Database(join(stateDir, LOCK_FILE));
    db.pragma('busy_timeout = 0');
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('CREATE TABLE IF NOT EXISTS held (at TEXT); INSERT INTO held VALUES (datetime())');
  } catch (err) {
    const holder = (await readFile(join(stateDir, PID_FILE), 'utf8').catch(() => '')).trim();
    if ((err as { code?: unknown }).code === 'SQLITE_BUSY')
      throw new FleetError(
        'state-locked',
        `another fleetd uses the state in ${stateDir}${holder ? ` (pid ${holder})` : ''}: stop it, or give this one another --state`,
      );
    throw new FleetError('state-unavailable', `cannot lock the state in ${stateDir}: ${errorMessage(err)}`);
  }
  writeFileSync(join(stateDir, PID_FILE), `${pid}\n`);
  return { release: () => db.close() };
}

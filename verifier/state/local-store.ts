import type { Db } from './database.js';
import type { Claim } from './claim.js';

/** Waiting claims kept by default; the oldest go first (a claim costs nothing to send). */
const MAX_CLAIMS = 1000;

/**
 * What fleetd keeps for itself whichever inventory it uses: machines waiting for approval (an
 * unknown serial has no device to write to) and the hashes of the install codes it answered.
 */
export class LocalStore {
  constructor(
    private readonly db: Db,
    private readonly maxClaims = MAX_CLAIMS,
  ) {}

  /** Keeps the newest claim per serial and the newest `maxClaims` in all. */
  recordClaim(claim: Claim): void {
    this.db.transaction(() => {
      this.db.prepare('INSERT OR REPLACE INTO claims (serial, at, body) VALUES (?, ?, ?)').run(claim.serial, claim.at, JSON.stringify(claim));
      this.db.prepare('DELETE FROM claims WHERE serial NOT IN (SELECT serial FROM claims ORDER BY at DESC, rowid DESC LIMIT ?)').run(this.maxClaims);
    })();
  }

  claim(serial: string): Claim | null {
    const row = this.db.prepare('SELECT body FROM claims WHERE serial = ?').get(serial) as { body: string } | undefined;
    return row ? (JSON.parse(row.body) as Claim) : null;
  }

  /** A device's admission clears its waiting claim. */
  dropClaim(serial: string): void {
    this.db.prepare('DELETE FROM claims WHERE serial = ?').run(serial);
  }

  /** Keeps only the SHA-256 of the code answered to `device` (its latest replaces any earlier). */
  recordInstallCode(device: string, sha256: string, bootId: string, at: string): void {
    this.db.prepare('INSERT OR REPLACE INTO install_codes (device, sha256, boot_id, at) VALUES (?, ?, ?, ?)').run(device, sha256, bootId, at);
  }

  /** The keys of the journal lines already written once (see the reconciler). */
  noted(): Set<string> {
    return new Set((this.db.prepare('SELECT key FROM notes').all() as Array<{ key: string }>).map((r) => r.key));
  }

  note(key: string, at: string): void {
    this.db.prepare('INSERT OR IGNORE INTO notes (key, at) VALUES (?, ?)').run(key, at);
  }

  /** Forgets notes about objects that are gone, so the table does not grow without bound. */
  forgetNotes(keep: (key: string) => boolean): void {
    const drop = [...this.noted()].filter((k) => !keep(k));
    const del = this.db.prepare('DELETE FROM notes WHERE key = ?');
    this.db.transaction(() => drop.forEach((k) => del.run(k)))();
  }

  installCode(device: string): { sha256: string; bootId: string; at: string } | null {
    const row = this.db.prepare('SELECT sha256, boot_id AS bootId, at FROM install_codes WHERE device = ?').get(device) as
      | { sha256: string; bootId: string; at: string }
      | undefined;
    return row ?? null;
  }
}

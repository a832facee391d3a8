import { DEFAULT_GROUP_PREFIXES, type GroupPrefixes } from '../../shared/net/address-group.js';
import { AddressHoldings } from '../../shared/net/address-holdings.js';
import type { Db } from './database.js';
import type { Claim } from './claim.js';

interface Row {
  rowid: number;
  serial: string;
  peer: string;
}

export interface InstallCodeRecord {
  device: string;
  hostname: string;
  sha256: string;
  /** The boot whose attestation it was answered to. */
  bootId: string;
  at: string;
  /** The run it belongs to; null for an intake's code, which the pass that starts the run takes. */
  run: string | null;
  servedAt: string | null;
}

const CODE_COLUMNS = 'device, hostname, sha256, boot_id AS bootId, at, run, served_at AS servedAt';

/** Waiting claims kept by default. */
const MAX_CLAIMS = 1000;
/** Claims one peer's address may hold: past it, that peer's own oldest goes. */
const CLAIMS_PER_PEER = 16;
/** Claims one address group (a /24, a /64) may hold: one host's aliases fill no more. */
const CLAIMS_PER_GROUP = 128;
/** TPMs one peer may claim one serial with: a machine re-attesting replaces its own claim. */
const CLAIMS_PER_PEER_SERIAL = 2;

/**
 * What fleetd keeps for itself whichever inventory it uses: machines waiting for approval (an
 * unknown serial has no device to write to) and the hashes of the install codes it answered.
 */
export class LocalStore {
  constructor(
    private readonly db: Db,
    private readonly maxClaims = MAX_CLAIMS,
    private readonly groups: GroupPrefixes = DEFAULT_GROUP_PREFIXES,
  ) {}

  /**
   * Keeps a claim per serial and TPM. Anyone with a TPM can claim any serial, so no claim displaces
   * another peer's: the caps are per peer (per serial, then in all, its own oldest going first);
   * past its address group's share or the total, the oldest claim of the largest group's largest
   * address goes (address-holdings.ts), and the serial it was for remembers that it lost one.
   */
  recordClaim(claim: Claim): void {
    const tpm = claim.eks.map((e) => e.hash).join(',');
    const keepNewest = (where: string, limit: number, ...args: string[]) =>
      this.db
        .prepare(`DELETE FROM claims WHERE ${where} AND rowid NOT IN (SELECT rowid FROM claims WHERE ${where} ORDER BY at DESC, rowid DESC LIMIT ?)`)
        .run(...args, ...args, limit);
    this.db.transaction(() => {
      this.db
        .prepare('INSERT OR REPLACE INTO claims (serial, tpm, peer, at, body) VALUES (?, ?, ?, ?, ?)')
        .run(claim.serial, tpm, claim.peer, claim.at, JSON.stringify(claim));
      keepNewest('serial = ? AND peer = ?', CLAIMS_PER_PEER_SERIAL, claim.serial, claim.peer);
      keepNewest('peer = ?', CLAIMS_PER_PEER, claim.peer);
      this.shedFor(claim);
    })();
  }

  /** Makes room for the claim just kept, past its group's cap or the total. */
  private shedFor(claim: Claim): void {
    const others = this.db
      .prepare('SELECT rowid, serial, peer FROM claims WHERE NOT (serial = ? AND tpm = ?) ORDER BY at ASC, rowid ASC')
      .all(claim.serial, claim.eks.map((e) => e.hash).join(',')) as Row[];
    const held = new AddressHoldings<Row>({ perAddress: Number.MAX_SAFE_INTEGER, perGroup: CLAIMS_PER_GROUP, total: this.maxClaims, groups: this.groups });
    for (const row of others) held.add(row, row.peer);
    const admission = held.admit(claim.peer, () => true, true);
    if (!admission.take || admission.evict === null) return;
    const { rowid, serial } = admission.evict;
    this.db.prepare('DELETE FROM claims WHERE rowid = ?').run(rowid);
    this.db
      .prepare(
        'INSERT INTO claims_shed (serial, count, last_at) VALUES (?, 1, ?) ON CONFLICT(serial) DO UPDATE SET count = count + 1, last_at = excluded.last_at',
      )
      .run(serial, claim.at);
  }

  /** How many claims of `serial` were shed to make room for others', and when the last went; null when none. */
  shedClaims(serial: string): { count: number; lastAt: string } | null {
    return (
      (this.db.prepare('SELECT count, last_at AS lastAt FROM claims_shed WHERE serial = ?').get(serial) as { count: number; lastAt: string } | undefined) ??
      null
    );
  }

  /** The newest claim of a serial, or null. */
  claim(serial: string): Claim | null {
    return this.claims(serial)[0] ?? null;
  }

  /** Every waiting claim of a serial, newest first: one per TPM that claimed it. */
  claims(serial: string): Claim[] {
    const rows = this.db.prepare('SELECT body FROM claims WHERE serial = ? ORDER BY at DESC, rowid DESC').all(serial) as Array<{ body: string }>;
    return rows.map((r) => JSON.parse(r.body) as Claim);
  }

  /** A device's admission clears its waiting claim, and what was shed of it. */
  dropClaim(serial: string): void {
    this.db.prepare('DELETE FROM claims WHERE serial = ?').run(serial);
    this.db.prepare('DELETE FROM claims_shed WHERE serial = ?').run(serial);
  }

  /** Keeps only the SHA-256 of the code answered to a device: its latest voids any earlier one. */
  recordInstallCode(code: Omit<InstallCodeRecord, 'servedAt'>): void {
    this.db
      .prepare('INSERT OR REPLACE INTO install_codes (device, hostname, sha256, boot_id, at, run, served_at) VALUES (?, ?, ?, ?, ?, ?, NULL)')
      .run(code.device, code.hostname, code.sha256, code.bootId, code.at, code.run);
  }

  /** The run a pass started takes the intake's code its machine's boot holds. */
  bindInstallCode(device: string, sha256: string, run: string): void {
    this.db.prepare('UPDATE install_codes SET run = ? WHERE device = ? AND sha256 = ? AND run IS NULL').run(run, device, sha256);
  }

  /** Every device's latest code, by device (for a reconcile pass: which boot holds a code for which run). */
  installCodes(): Map<string, InstallCodeRecord> {
    const rows = this.db.prepare(`SELECT ${CODE_COLUMNS} FROM install_codes`).all() as InstallCodeRecord[];
    return new Map(rows.map((r) => [r.device, r]));
  }

  /** The device a code (by its hash) was answered to, and whether its config was served. */
  installCodeByHash(sha256: string): InstallCodeRecord | null {
    return (this.db.prepare(`SELECT ${CODE_COLUMNS} FROM install_codes WHERE sha256 = ?`).get(sha256) as InstallCodeRecord | undefined) ?? null;
  }

  markServed(sha256: string, at: string): void {
    this.db.prepare('UPDATE install_codes SET served_at = ? WHERE sha256 = ?').run(at, sha256);
  }

  /** The keys of the journal lines already written once (see the reconciler). */
  noted(): Set<string> {
    return new Set((this.db.prepare('SELECT key FROM notes').all() as Array<{ key: string }>).map((r) => r.key));
  }

  isNoted(key: string): boolean {
    return this.db.prepare('SELECT 1 FROM notes WHERE key = ?').get(key) !== undefined;
  }

  note(key: string, at: string): void {
    this.db.prepare('INSERT OR IGNORE INTO notes (key, at) VALUES (?, ?)').run(key, at);
  }

  /** Forgets notes about objects that are gone, so the table does not grow without bound. */
  forgetNotes(keep: (key: string) => boolean): void {
    const drop = [...this.noted()].filter((k) => !keep(k));
    const del = this.db.prepare('DELETE FROM notes WHERE key = ?');
    this.db.transaction(() => {
      for (const k of drop) del.run(k);
    })();
  }

  installCode(device: string): InstallCodeRecord | null {
    return (this.db.prepare(`SELECT ${CODE_COLUMNS} FROM install_codes WHERE device = ?`).get(device) as InstallCodeRecord | undefined) ?? null;
  }
}

import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { FleetError, errorMessage } from '../../shared/errors.js';

export type Db = Database.Database;

/**
 * Schema versions in order. A database is migrated forward on open, inside one transaction per
 * step; a database newer than this code is refused rather than misread.
 */
const MIGRATIONS: string[] = [
  `CREATE TABLE claims (
     serial TEXT PRIMARY KEY,
     at TEXT NOT NULL,
     body TEXT NOT NULL
   );
   CREATE INDEX claims_at ON claims(at);
   CREATE TABLE install_codes (
     device TEXT PRIMARY KEY,
     sha256 TEXT NOT NULL,
     boot_id TEXT NOT NULL,
     at TEXT NOT NULL
   );
   CREATE TABLE device_state (
     hostname TEXT PRIMARY KEY,
     status TEXT NOT NULL DEFAULT 'planned',
     mac TEXT,
     verdict TEXT,
     verdict_at TEXT,
     attested TEXT,
     desired_action TEXT,
     last_run TEXT
   );
   CREATE TABLE journal (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     hostname TEXT NOT NULL,
     at TEXT NOT NULL,
     kind TEXT NOT NULL,
     message TEXT NOT NULL
   );
   CREATE INDEX journal_hostname ON journal(hostname, id);`,
  // The reconciler's journal lines that must appear once per event (a run's end, a wait, ...).
  `CREATE TABLE notes (
     key TEXT PRIMARY KEY,
     at TEXT NOT NULL
   );`,
  // A code's device stays known after its config is gone, so a late or repeated fetch is recognised.
  `ALTER TABLE install_codes ADD COLUMN hostname TEXT;
   ALTER TABLE install_codes ADD COLUMN served_at TEXT;
   CREATE INDEX install_codes_sha256 ON install_codes(sha256);`,
  // The run a code belongs to: null for an intake's code, until the pass that starts its run takes it.
  `ALTER TABLE install_codes ADD COLUMN run TEXT;`,
  // A claim per serial and TPM (its EK hashes), with the peer that sent it: another machine's claim
  // of the serial no longer replaces the real one, and the caps are per peer.
  `ALTER TABLE claims RENAME TO claims_v1;
   CREATE TABLE claims (
     serial TEXT NOT NULL,
     tpm TEXT NOT NULL,
     peer TEXT NOT NULL,
     at TEXT NOT NULL,
     body TEXT NOT NULL,
     PRIMARY KEY (serial, tpm)
   );
   INSERT INTO claims (serial, tpm, peer, at, body)
     SELECT serial, coalesce((SELECT group_concat(json_extract(e.value, '$.hash'), ',') FROM json_each(claims_v1.body, '$.eks') AS e), ''),
            coalesce(json_extract(body, '$.peer'), ''), at, body
     FROM claims_v1;
   DROP TABLE claims_v1;
   CREATE INDEX claims_at ON claims(at);
   CREATE INDEX claims_peer ON claims(peer, at);`,
  // A claim keeps its EK certificates' DER for fleet attest approve to read; one kept before holds
  // only their subject and issuer, and says so by a null DER.
  `UPDATE claims SET body = json_set(body, '$.eks', (
     SELECT json_group_array(CASE WHEN json_type(e.value, '$.certificate') = 'object'
                                  THEN json_set(e.value, '$.certificate.der', NULL) ELSE json(e.value) END ORDER BY e.key)
     FROM json_each(claims.body, '$.eks') AS e))
   WHERE json_type(body, '$.eks') = 'array';`,
  // Claims shed to make room for others' (a flood from many addresses), per serial: approve says so.
  `CREATE TABLE claims_shed (
     serial TEXT PRIMARY KEY,
     count INTEGER NOT NULL,
     last_at TEXT NOT NULL
   );`,
  // The nodes-file change fleetd refused (it serves the last good one), for fleet status to show.
  `CREATE TABLE inventory_refused (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     at TEXT NOT NULL,
     body TEXT NOT NULL
   );`,
];

/**
 * Opens the verifier's database in `stateDir`: WAL, foreign keys, migrated. fleetd creates it when
 * absent; a command given `mustExist` refuses instead, since a mistyped --state would otherwise
 * answer from a new, empty database as if nothing waited.
 */
export function openDatabase(stateDir: string, opts: { mustExist?: boolean } = {}): Db {
  const file = join(stateDir, 'fleet.sqlite');
  if (opts.mustExist && !existsSync(file))
    throw new FleetError('state-missing', `no state database in ${stateDir}: give --state the directory fleet serve keeps its state in`);
  let db: Db;
  try {
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    db = new Database(file);
  } catch (err) {
    throw new FleetError('state-unavailable', `cannot open the state database in ${stateDir}: ${errorMessage(err)}`);
  }
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > MIGRATIONS.length) {
    db.close();
    throw new FleetError('state-unavailable', `the state database in ${stateDir} has schema ${version}; this fleet knows ${MIGRATIONS.length}`);
  }
  for (let v = version; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
  return db;
}

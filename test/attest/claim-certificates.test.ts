import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { unwrapStored } from '../../shared/ek-cert/stored.js';
import type { Claim } from '../../verifier/state/claim.js';
import { openDatabase } from '../../verifier/state/database.js';
import { LocalStore } from '../../verifier/state/local-store.js';
import { tcgCert } from '../evidence/tcg-certs.js';

/**
 * A waiting claim keeps the DER of each EK certificate that came along, for `fleet attest approve`
 * to read again (its maker, model and version, its chain); claims an older fleetd kept survive
 * the migration with what they held, and say they hold no DER.
 */
let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

const base = { serial: 'SN-1', at: '2026-11-01T00:00:00Z', mac: '52:54:00:12:34:56', peer: '10.0.1.11', switchPort: 'Port 5' };

describe("a waiting claim's EK certificates", () => {
  it('keep their DER, without the NV header or padding, across a restart', async () => {
    dir = await mkdtemp(join(tmpdir(), 'claims-'));
    const der = Buffer.from(unwrapStored(tcgCert('certificates/ek_cert_with_security_assertions.cer')).der).toString('base64');
    const claim: Claim = { ...base, eks: [{ kind: 'rsa2048', hash: 'a'.repeat(64), certificate: { der } }] };
    let db = openDatabase(dir);
    new LocalStore(db).recordClaim(claim);
    db.close();
    db = openDatabase(dir);
    expect(new LocalStore(db).claims('SN-1')).toEqual([claim]);
    db.close();
  });

  it('of a claim an older fleetd kept (subject and issuer only) survive the migration, marked as holding no DER', async () => {
    dir = await mkdtemp(join(tmpdir(), 'claims-'));
    const old = new Database(join(dir, 'fleet.sqlite'));
    old.exec(
      'CREATE TABLE claims (serial TEXT NOT NULL, tpm TEXT NOT NULL, peer TEXT NOT NULL, at TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (serial, tpm));',
    );
    const eks = [
      { kind: 'rsa2048', hash: 'a'.repeat(64), certificate: { subject: 'CN=EK', issuer: 'CN=Maker EK CA, O=Maker' } },
      { kind: 'eccp256', hash: 'b'.repeat(64), certificate: null },
    ];
    const insert = old.prepare('INSERT INTO claims VALUES (?, ?, ?, ?, ?)');
    insert.run('SN-1', 'a,b', base.peer, base.at, JSON.stringify({ ...base, eks }));
    insert.run('SN-2', '', base.peer, base.at, JSON.stringify({ ...base, serial: 'SN-2', eks: [] }));
    old.pragma('user_version = 5');
    old.close();

    const db = openDatabase(dir);
    const store = new LocalStore(db);
    expect(store.claims('SN-1')).toEqual([
      {
        ...base,
        eks: [
          { kind: 'rsa2048', hash: 'a'.repeat(64), certificate: { subject: 'CN=EK', issuer: 'CN=Maker EK CA, O=Maker', der: null } },
          { kind: 'eccp256', hash: 'b'.repeat(64), certificate: null },
        ],
      },
    ]);
    expect(store.claims('SN-2')).toEqual([{ ...base, serial: 'SN-2', eks: [] }]);
    db.close();
  });
});

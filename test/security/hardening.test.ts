import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { removeInstallCode, writeInstallCode } from '../../agent/install-code.js';
import { postJson } from '../../agent/attest/verifier-client.js';
import { Tpm } from '../../shared/tpm/client.js';
import { getHandles } from '../../shared/tpm/commands/capability.js';
import { createPrimary } from '../../shared/tpm/commands/object.js';
import { TPM_CC, TPM_RH } from '../../shared/tpm/constants.js';
import { ekTemplateRsa } from '../../shared/tpm/templates.js';
import { StartAnswer } from '../../shared/wire/schemas.js';
import { EmbeddedInventory } from '../../verifier/inventory/embedded/embedded.js';
import { openDatabase } from '../../verifier/state/database.js';
import { LocalStore } from '../../verifier/state/local-store.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

const rsp = (hex: string) => new Uint8Array(Buffer.from(hex.replace(/\s/g, ''), 'hex'));

describe('the TPM client does not leak or loop on a bad TPM', () => {
  it('a CreatePrimary answer that does not parse flushes the handle it named', async () => {
    const sent: number[] = [];
    const tpm = new Tpm({
      transmit: async (cmd) => {
        const cc = Buffer.from(cmd).readUInt32BE(6);
        sent.push(cc);
        if (cc === TPM_CC.FlushContext) return rsp('8001 0000000a 00000000');
        // success, handle 0x80000007, parameterSize 4 of junk where the public area should be, a valid session area
        return rsp('8002 0000001b 00000000 80000007 00000004 ffff0000 0000 00 0000');
      },
      close: async () => undefined,
    });
    await expect(createPrimary(tpm, TPM_RH.ENDORSEMENT, ekTemplateRsa())).rejects.toMatchObject({ code: 'tpm-malformed' });
    expect(sent).toEqual([TPM_CC.CreatePrimary, TPM_CC.FlushContext]);
  });

  it('GetCapability that pages backwards is refused, not followed forever', async () => {
    // moreData=1, TPM_CAP_HANDLES, one handle below the one asked for
    const tpm = new Tpm({ transmit: async () => rsp('8001 00000017 00000000 01 00000001 00000001 80ffffff'), close: async () => undefined });
    await expect(getHandles(tpm, 0x81000000)).rejects.toMatchObject({ code: 'tpm-malformed', message: /below the one asked for/ });
  });
});

describe('the agent never sends or leaves the install code where it should not', () => {
  it('refuses plain HTTP to a verifier off this machine', async () => {
    await expect(postJson({ baseUrl: 'http://10.0.0.1:8443' }, '/v1/attest/start', {}, StartAnswer)).rejects.toMatchObject({
      code: 'verifier-url-refused',
      message: /refusing plain HTTP to 10\.0\.0\.1:8443/,
    });
  });

  it('removes a temp copy of a code a crash left beside the code file', async () => {
    dir = await mkdtemp(join(tmpdir(), 'code-'));
    const path = join(dir, 'install_code');
    await writeInstallCode(path, 'code-1');
    await writeFile(join(dir, '.install_code.abcdef123456.tmp'), 'code-0');
    await writeFile(join(dir, 'other'), 'kept');
    await removeInstallCode(path);
    expect(await readdir(dir)).toEqual(['other']);
  });
});

describe("fleetd's state in SQLite", () => {
  const NODES = 'models: {m: {}}\nclasses: {w: {payload: talos, installer_image: x}}\nnodes:\n  n1: {model: m, class: w, serial: S1}\n';
  const claim = (serial: string, at: string) => ({ serial, at, mac: 'm', peer: 'p', switchPort: null, eks: [] });

  it('keeps the newest claims up to its cap, the newest per serial', async () => {
    dir = await mkdtemp(join(tmpdir(), 'state-'));
    const db = openDatabase(dir);
    const store = new LocalStore(db, 3);
    for (const [i, s] of ['a', 'b', 'c', 'd', 'b'].entries()) store.recordClaim(claim(s, `2026-11-30T00:00:0${i}Z`));
    expect(store.claim('a')).toBeNull();
    for (const s of ['b', 'c', 'd']) expect(store.claim(s)).not.toBeNull();
    expect(store.claim('b')?.at).toBe('2026-11-30T00:00:04Z');
    db.close();
  });

  it("another TPM's claim of a serial, from another address, displaces nothing; nor does a flood of claims from one address", async () => {
    dir = await mkdtemp(join(tmpdir(), 'state-'));
    const db = openDatabase(dir);
    const store = new LocalStore(db, 40);
    const tpm = (h: string) => [{ kind: 'rsa2048' as const, hash: h.repeat(64), certificate: null }];
    store.recordClaim({ ...claim('SN-V', '2026-11-30T00:00:00Z'), peer: '10.0.1.11', eks: tpm('a') });
    for (let i = 0; i < 5; i++) store.recordClaim({ ...claim('SN-V', `2026-11-30T00:00:1${i}Z`), peer: '10.9.9.9', eks: tpm(String(i)) });
    for (let i = 0; i < 100; i++)
      store.recordClaim({ ...claim(`SN-F${i}`, `2026-11-30T00:01:${String(i % 60).padStart(2, '0')}Z`), peer: '10.9.9.9', eks: tpm('f') });
    // Filled from many addresses: the peers holding the most go first.
    for (let p = 0; p < 30; p++)
      for (let i = 0; i < 3; i++) store.recordClaim({ ...claim(`SN-P${p}-${i}`, '2026-11-30T00:02:00Z'), peer: `10.8.0.${p}`, eks: tpm('e') });
    const rivals = store.claims('SN-V');
    expect(rivals.map((c) => c.peer)).toContain('10.0.1.11');
    expect(rivals.find((c) => c.peer === '10.0.1.11')?.eks[0]?.hash).toBe('a'.repeat(64));
    expect(rivals.filter((c) => c.peer === '10.9.9.9').length).toBeLessThanOrEqual(2);
    db.close();
  });

  it('a database of the one-claim-per-serial schema keeps its waiting claims, each under its TPM', async () => {
    dir = await mkdtemp(join(tmpdir(), 'state-'));
    const old = new Database(join(dir, 'fleet.sqlite'));
    old.exec('CREATE TABLE claims (serial TEXT PRIMARY KEY, at TEXT NOT NULL, body TEXT NOT NULL); CREATE INDEX claims_at ON claims(at);');
    const waiting = {
      ...claim('SN-OLD', '2026-11-01T00:00:00Z'),
      peer: '10.0.1.11',
      eks: [
        { kind: 'rsa2048' as const, hash: 'a'.repeat(64), certificate: null },
        { kind: 'eccp256' as const, hash: 'b'.repeat(64), certificate: null },
      ],
    };
    old.prepare('INSERT INTO claims VALUES (?, ?, ?)').run('SN-OLD', waiting.at, JSON.stringify(waiting));
    old.pragma('user_version = 4');
    old.close();
    const db = openDatabase(dir);
    expect(new LocalStore(db).claims('SN-OLD')).toEqual([waiting]);
    expect(db.prepare('SELECT tpm, peer FROM claims').all()).toEqual([{ tpm: `${'a'.repeat(64)},${'b'.repeat(64)}`, peer: '10.0.1.11' }]);
    // The same TPM claiming again replaces its own claim, not adds one.
    new LocalStore(db).recordClaim({ ...waiting, at: '2026-12-01T00:00:00Z' });
    expect(new LocalStore(db).claims('SN-OLD').map((c) => c.at)).toEqual(['2026-12-01T00:00:00Z']);
    db.close();
  });

  it('the device state, journal, claims and code hashes survive a restart', async () => {
    dir = await mkdtemp(join(tmpdir(), 'state-'));
    await writeFile(join(dir, 'nodes.yaml'), NODES);
    let db = openDatabase(join(dir, 'state'));
    let inv = new EmbeddedInventory(join(dir, 'nodes.yaml'), db);
    const n1 = (await inv.deviceBySerial('S1'))!;
    await inv.recordAttested(n1, { at: 't', mac: '52:54:00:00:00:01', bootId: 'b', eks: {}, secureBoot: true, switchPort: 'Port 5' });
    await inv.setDesiredAction(n1, 'provision');
    await inv.journal(n1, 'success', 'attested');
    new LocalStore(db).recordClaim(claim('S9', 't'));
    new LocalStore(db).recordInstallCode({ device: 'n1', hostname: 'n1', sha256: 'ab'.repeat(32), bootId: 'boot', at: 't', run: null });
    db.close();

    db = openDatabase(join(dir, 'state'));
    inv = new EmbeddedInventory(join(dir, 'nodes.yaml'), db);
    const again = (await inv.deviceBySerial('S1'))!;
    expect(again).toMatchObject({ mac: '52:54:00:00:00:01', desiredAction: 'provision', status: 'planned' });
    expect(inv.record('n1')).toMatchObject({ verdict: 'attested', attested: { switchPort: 'Port 5' } });
    expect((await inv.journalOf(again)).map((j) => j.message)).toEqual(['attested']);
    expect(new LocalStore(db).claim('S9')).not.toBeNull();
    expect(new LocalStore(db).installCode('n1')?.sha256).toBe('ab'.repeat(32));
    db.close();
  });

  it('refuses a nodes file with problems at start, and a database from a newer fleet', async () => {
    dir = await mkdtemp(join(tmpdir(), 'state-'));
    await writeFile(join(dir, 'nodes.yaml'), `${NODES}  n2: {model: m, class: w, serial: S1}\n`);
    const db = openDatabase(join(dir, 'state'));
    expect(() => new EmbeddedInventory(join(dir!, 'nodes.yaml'), db)).toThrow(/n2: serial S1 is held by n1/);
    db.pragma('user_version = 99');
    db.close();
    expect(() => openDatabase(join(dir!, 'state'))).toThrow(/has schema 99/);
  });
});

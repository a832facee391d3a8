import { describe, expect, it } from 'vitest';
import { ParseError } from '../../shared/errors.js';
import { canonicalJson, parseReport, reportBytes } from '../../shared/wire/report.js';
import type { Report } from '../../shared/wire/schemas.js';
import { Refusal } from '../../verifier/attest/refusal.js';
import { RefusalAudit } from '../../verifier/attest/refusal-audit.js';
import { SessionStore, type Session } from '../../verifier/attest/session-store.js';

const report: Report = {
  version: 1,
  session: 'abcdefghijklmnopqrstuvwx',
  serial: 'SN 1',
  mac: '52:54:00:12:34:56',
  lldp: null,
  eventLogSha256: 'ab'.repeat(32),
  bootId: '0f2b9c4e-5d6a-4b7c-8d9e-0a1b2c3d4e5f',
};

describe('the canonical report', () => {
  it('sorts keys and has no white space', () => {
    expect(canonicalJson({ b: 1, a: [{ d: null, c: 'x' }] })).toBe('{"a":[{"c":"x","d":null}],"b":1}');
  });

  it('round-trips', () => {
    expect(parseReport(reportBytes(report))).toEqual(report);
  });

  it.each([
    ['white space', Buffer.from(JSON.stringify(report, null, 1))],
    ['unsorted keys', Buffer.from(JSON.stringify(report))],
    ['a duplicate key', Buffer.from(new TextDecoder().decode(reportBytes(report)).replace('"bootId":', '"bootId":"x","bootId":'))],
    ['an extra field', reportBytes({ ...report, extra: 1 } as never)],
    ['a bad MAC', reportBytes({ ...report, mac: '52:54:00:12:34' })],
    ['bytes that are not UTF-8', Buffer.from([0x7b, 0xff, 0x7d])],
    ['not JSON', Buffer.from('report')],
  ])('refuses %s', (_name, bytes) => {
    expect(() => parseReport(bytes)).toThrow(ParseError);
  });
});

describe('the session store', () => {
  const session = (id: string, expiresAt: number, serial = 's'): Session => ({
    id,
    serial,
    mac: 'm',
    eks: [],
    ak: {} as never,
    nonce: new Uint8Array(),
    secrets: new Map(),
    expiresAt,
  });

  it('a session is taken once', () => {
    const store = new SessionStore(1000, {}, () => 0);
    store.add(session('one', 1000), 'p');
    expect(store.take('one').id).toBe('one');
    expect(() => store.take('one')).toThrow(expect.objectContaining({ code: 'session-replayed' }));
    expect(() => store.take('two')).toThrow(expect.objectContaining({ code: 'session-unknown' }));
  });

  it('a session taken after its deadline is expired', () => {
    let now = 0;
    const store = new SessionStore(1000, {}, () => now);
    store.add(session('one', store.deadline()), 'p');
    now = 1001;
    const s = store.take('one');
    expect(() => store.checkLive(s)).toThrow(Refusal);
  });

  it('forgets sessions long past their deadline, and caps how many it holds', () => {
    let now = 0;
    const store = new SessionStore(1000, { total: 3 }, () => now);
    for (const id of ['a', 'b', 'c', 'd']) store.add(session(id, store.deadline(), id), 'p');
    expect(store.size).toBe(3);
    expect(() => store.take('a')).toThrow(expect.objectContaining({ code: 'session-unknown' }));
    now = 5000;
    store.add(session('e', store.deadline()), 'p');
    expect(store.size).toBe(1);
  });

  it("a flood of one serial evicts only that serial's oldest sessions", () => {
    const store = new SessionStore(1000, { perSerial: 2 }, () => 0);
    store.add(session('victim', 1000, 'SN-V'), 'victim-ip');
    for (let i = 0; i < 10; i++) store.add(session(`f${i}`, 1000, 'SN-F'), 'flood-ip');
    expect(store.take('victim').serial).toBe('SN-V');
    expect(store.size).toBe(3);
  });

  it("claiming another machine's serial from another address evicts nothing of that machine's", () => {
    const store = new SessionStore(1000, { perSerial: 4 }, () => 0);
    store.add(session('victim', 1000, 'SN-V'), 'victim-ip');
    for (let i = 0; i < 10; i++) store.add(session(`f${i}`, 1000, 'SN-V'), 'attacker-ip');
    expect(store.take('victim').serial).toBe('SN-V');
    // The attacker's own claim of it is what it displaced.
    expect(() => store.take('f0')).toThrow(expect.objectContaining({ code: 'session-unknown' }));
    expect(store.take('f9').serial).toBe('SN-V');
  });

  it("a table filled from many addresses sheds the sessions of the peers holding the most, not a machine's one", () => {
    const store = new SessionStore(1000, { total: 10, perPeer: 3 }, () => 0);
    store.add(session('victim', 1000, 'SN-V'), 'victim-ip');
    for (const p of ['b', 'c', 'd', 'e', 'f']) for (let i = 0; i < 3; i++) store.add(session(`${p}${i}`, 1000, `SN-${p}${i}`), p);
    expect(store.size).toBe(10);
    expect(store.take('victim').serial).toBe('SN-V');
  });

  it.each([
    ['one IPv6 /64', (i: number) => `fd00::${(i + 1).toString(16)}`],
    ['40 IPv4 /24s', (i: number) => `10.1.${Math.floor(i / 254)}.${1 + (i % 254)}`],
  ])("10,050 starts from as many addresses in %s shed each other, not a machine's session (the defaults)", (_name, address) => {
    const store = new SessionStore(60_000, {}, () => 0);
    store.add(session('victim', 60_000, 'SN-V'), '10.0.1.11');
    for (let i = 0; i < 10_050; i++) store.add(session(`f${i}`, 60_000, `SN-${i}`), address(i));
    expect(store.size).toBeLessThanOrEqual(4096);
    expect(store.take('victim').serial).toBe('SN-V');
  });

  it("a refused start holds its peer's share as a session would, until forgotten", () => {
    let now = 0;
    const store = new SessionStore(1000, { perPeer: 2 }, () => now);
    store.chargeRefused('p');
    store.chargeRefused('p');
    expect(() => store.admit('p')).toThrow(expect.objectContaining({ code: 'too-many-sessions', statusCode: 429 }));
    expect(() => store.admit('q')).not.toThrow();
    now = 2001;
    expect(() => store.admit('p')).not.toThrow();
  });

  it('refuses a peer that holds its share, with 429, until its sessions are forgotten', () => {
    let now = 0;
    const store = new SessionStore(1000, { perPeer: 2 }, () => now);
    store.add(session('a', store.deadline(), 'x'), 'p');
    store.add(session('b', store.deadline(), 'y'), 'p');
    expect(() => store.admit('p')).toThrow(expect.objectContaining({ code: 'too-many-sessions', statusCode: 429 }));
    expect(() => store.admit('q')).not.toThrow();
    now = 2001;
    expect(() => store.admit('p')).not.toThrow();
  });
});

describe('the audit of refusals a peer provokes', () => {
  it("one line each up to the window's share, then one summary per peer and window; every one counted", () => {
    let now = 0;
    const lines: Array<Record<string, unknown>> = [];
    const counted: string[] = [];
    const audit = new RefusalAudit(
      (event, fields) => lines.push({ event, ...fields }),
      (v) => counted.push(v),
      8,
      60_000,
      () => now,
    );
    for (let i = 0; i < 20; i++) audit.refused('10.9.9.9', { peer: '10.9.9.9', verdict: i % 2 ? 'ek-invalid' : 'ak-invalid' });
    audit.refused('10.0.1.11', { peer: '10.0.1.11', verdict: 'ek-invalid' });
    expect(lines.filter((l) => l.event === 'attest.verdict')).toHaveLength(9);
    expect(counted).toHaveLength(21);
    now = 60_000;
    audit.flushEnded();
    expect(lines.filter((l) => l.event === 'attest.refusals')).toEqual([
      { event: 'attest.refusals', peer: '10.9.9.9', suppressed: 12, verdicts: { 'ak-invalid': 6, 'ek-invalid': 6 }, windowS: 60 },
    ]);
    // A new window: lines again.
    audit.refused('10.9.9.9', { peer: '10.9.9.9', verdict: 'ek-invalid' });
    expect(lines.at(-1)).toMatchObject({ event: 'attest.verdict', peer: '10.9.9.9' });
  });
});

import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { capped, hookosEntry } from '../../verifier/syslog/hookos-entry.js';
import { withoutInstallCodes } from '../../verifier/syslog/install-code-redaction.js';
import { encodeJournalEntry } from '../../verifier/syslog/journal-native.js';
import { parseSyslog } from '../../verifier/syslog/parse.js';
import { decodeJournalEntry, fieldMap } from './journal-decode.js';

describe('the native protocol', () => {
  it('writes NAME=value, and a value with a newline length-prefixed', () => {
    const entry = encodeJournalEntry([
      ['A', 'x'],
      ['B', 'two\nlines'],
      ['C', Buffer.from([0xff, 0, 0x0a])],
    ]);
    expect(entry).toEqual(
      Buffer.concat([
        Buffer.from('A=x\nB\n'),
        Buffer.from([9, 0, 0, 0, 0, 0, 0, 0]),
        Buffer.from('two\nlines\nC\n'),
        Buffer.from([3, 0, 0, 0, 0, 0, 0, 0, 0xff, 0, 0x0a, 0x0a]),
      ]),
    );
    expect(decodeJournalEntry(entry).map(([n, v]) => [n, [...v]])).toEqual([
      ['A', [...Buffer.from('x')]],
      ['B', [...Buffer.from('two\nlines')]],
      ['C', [0xff, 0, 0x0a]],
    ]);
  });
});

describe('the HookOS entry', () => {
  it('has the fields the runbook queries, and what the message said', () => {
    const msg = parseSyslog(Buffer.from('<27>1 2026-11-30T07:43:36.655527+00:00 node-1 tink-worker 42 MID [x@1 a="b"] failed\nat step 2'));
    expect(fieldMap(hookosEntry(msg, '10.0.1.11'))).toEqual({
      MESSAGE: 'failed\nat step 2',
      PRIORITY: '3',
      SYSLOG_FACILITY: '3',
      SYSLOG_IDENTIFIER: 'hookos',
      HOOKOS_HOST: '10.0.1.11',
      HOOKOS_PROGRAM: 'tink-worker',
      HOOKOS_PID: '42',
      HOOKOS_HOSTNAME: 'node-1',
      SYSLOG_TIMESTAMP: '2026-11-30T07:43:36.655527+00:00',
      HOOKOS_MSGID: 'MID',
      HOOKOS_STRUCTURED_DATA: '[x@1 a="b"]',
    });
  });

  it('leaves out what the message did not say, and names what was wrong with it', () => {
    const fields = decodeJournalEntry(hookosEntry(parseSyslog(Buffer.from('just text')), 'fe80::1'));
    expect(fields.map(([n, v]) => `${n}=${v}`)).toEqual([
      'MESSAGE=just text',
      'PRIORITY=5',
      'SYSLOG_FACILITY=1',
      'SYSLOG_IDENTIFIER=hookos',
      'HOOKOS_HOST=fe80::1',
      'HOOKOS_SYSLOG_ANOMALY=no-pri',
      'HOOKOS_SYSLOG_ANOMALY=no-timestamp',
    ]);
  });

  it('keeps a message that is not UTF-8 byte for byte', () => {
    const raw = Buffer.from([0xff, 0xfe, 0x0a, 0x00, 0x41]);
    const msg = parseSyslog(Buffer.concat([Buffer.from('<13>Nov 30 07:43:45 h p: '), raw]));
    const message = decodeJournalEntry(hookosEntry(msg, '10.0.0.1')).find(([n]) => n === 'MESSAGE')![1];
    expect([...message]).toEqual([...raw]);
  });

  it('cuts a long message with a marker', () => {
    const msg = parseSyslog(Buffer.from(`<13>Nov 30 07:43:45 h p: ${'x'.repeat(20_000)}`));
    const message = fieldMap(hookosEntry(msg, '10.0.0.1', 100)).MESSAGE!;
    expect(message).toBe(`${'x'.repeat(100)} [fleetd: truncated, 20000 bytes in all]`);
  });
});

describe('capped', () => {
  it('leaves a value that fits alone', () => {
    const v = Buffer.from('abc');
    expect(capped(v, 3)).toBe(v);
  });

  it('never cuts a UTF-8 character in two', () => {
    // "aé€😀": 1 + 2 + 3 + 4 bytes.
    const v = Buffer.from('aé€😀');
    const cuts = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((max) =>
      capped(v, max)
        .toString()
        .replace(/ \[fleetd.*$/, ''),
    );
    expect(cuts).toEqual(['a', 'a', 'aé', 'aé', 'aé', 'aé€', 'aé€', 'aé€', 'aé€']);
  });

  it.each([
    ['a seed URL', (c: string) => `fetching https://spore/v1/seed/${c}`],
    ['a doubled slash', (c: string) => `GET //v1/config//${c} HTTP/1.1`],
    ['upper case', (c: string) => `URL=HTTPS://SPORE/V1/CONFIG/${c}`],
    ['URL-encoded', (c: string) => `talos.config=https%3A%2F%2Fspore%2Fv1%2Fconfig%2F${c}`],
    ['JSON-escaped', (c: string) => `{"url":"https:\\/\\/spore\\/v1\\/config\\/${c}"}`],
    ['a bare code', (c: string) => `code=${c}`],
  ])('blanks an install code in %s', (_n, line) => {
    const code = randomBytes(32).toString('base64url');
    const out = withoutInstallCodes(Buffer.from(line(code))).toString();
    expect(out).not.toContain(code);
    expect(out).toBe(line('<install code>'));
  });

  it('blanks an install code in a config URL, and leaves everything else as sent', () => {
    const code = randomBytes(32).toString('base64url');
    const line = `<14>Nov 30 07:43:45 node-1 installer[9]: kernel command line: console=ttyS0 talos.config=https://enroll.lolwtf.ca:8443/v1/config/${code} \xff`;
    const fields = fieldMap(hookosEntry(parseSyslog(Buffer.from(line, 'latin1')), '10.0.1.11'));
    expect(fields.MESSAGE).toBe('kernel command line: console=ttyS0 talos.config=https://enroll.lolwtf.ca:8443/v1/config/<install code> \ufffd');
    expect(JSON.stringify(fields)).not.toContain(code);
    // A code run on into more characters is still the code.
    expect(withoutInstallCodes(Buffer.from(`/v1/config/${code}x`)).toString()).toBe('/v1/config/<install code>');
    // Not a code: too short, a hash, a UUID.
    const hash = 'c0ffee'.repeat(10) + 'abcd';
    for (const kept of ['/v1/config/abc', `sha256:${hash}`, 'boot c2a8a028-2f5e-4fd5-83f9-b072486a55e2'])
      expect(withoutInstallCodes(Buffer.from(kept)).toString()).toBe(kept);
    const bytes = Buffer.from([0xc3, 0x28, 0x0a]);
    expect(withoutInstallCodes(bytes)).toBe(bytes);
  });
});

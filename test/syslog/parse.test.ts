import { describe, expect, it } from 'vitest';
import { parseSyslog } from '../../verifier/syslog/parse.js';
import { readStructuredData } from '../../verifier/syslog/structured-data.js';

const parse = (s: string | Buffer) => parseSyslog(typeof s === 'string' ? Buffer.from(s) : s);
const text = (s: string | Buffer) => {
  const m = parse(s);
  return { ...m, message: m.message.toString() };
};

describe('PRI', () => {
  it('splits facility and severity', () => {
    expect(text('<0>Nov 30 07:43:45 k: x')).toMatchObject({ facility: 0, severity: 0 });
    expect(text('<191>Nov 30 07:43:45 k: x')).toMatchObject({ facility: 23, severity: 7 });
    expect(text('<156>Nov 30 07:43:45 k: x')).toMatchObject({ facility: 19, severity: 4 });
  });

  it('no PRI: user.notice (13), the header still read (RFC 3164 §4.3.3)', () => {
    expect(text('Oct 11 22:14:15 host.example app[123]: legacy')).toMatchObject({
      facility: 1,
      severity: 5,
      hostname: 'host.example',
      program: 'app',
      pid: '123',
      message: 'legacy',
      anomalies: ['no-pri'],
    });
  });

  it.each(['<192>Nov 30 07:43:45 k: x', '<1000>x', '<>x', '<13', '<a>x', '<-1>x'])('%j is no valid PRI: 13, the whole datagram the message', (s) => {
    expect(text(s)).toMatchObject({
      facility: 1,
      severity: 5,
      program: undefined,
      hostname: undefined,
      timestamp: undefined,
      message: s,
      anomalies: ['bad-pri'],
    });
  });
});

describe('RFC 3164', () => {
  it('with a host name', () => {
    expect(text("<34>Oct 11 22:14:15 mymachine su: 'su root' failed")).toMatchObject({
      format: 'rfc3164',
      timestamp: 'Oct 11 22:14:15',
      hostname: 'mymachine',
      program: 'su',
      pid: undefined,
      message: "'su root' failed",
      anomalies: [],
    });
  });

  it('without a host name: a first token ending in ":" is the tag (busybox syslogd -R, glibc syslog(3))', () => {
    expect(text('<156>Nov 30 07:43:45 myprog: hello from busybox\n')).toMatchObject({ hostname: undefined, program: 'myprog', message: 'hello from busybox' });
    expect(text('<13>Nov  3 07:43:45 tink-worker[812]: msg')).toMatchObject({ hostname: undefined, program: 'tink-worker', pid: '812', message: 'msg' });
  });

  it.each([
    ['<13>Nov 30 07:43:45 [::1] p: m', undefined, '[::1] p: m'],
    ['<13>: hello', undefined, ': hello'],
    ['<13>Nov 30 07:43:45 h :x y', 'h', ':x y'],
    ['<13>Nov 30 07:43:45 h [INFO]: started', 'h', '[INFO]: started'],
  ])('a tag with no program in it (%j) is message text, kept whole', (s, hostname, message) => {
    expect(text(s)).toMatchObject({ hostname, program: undefined, pid: undefined, message });
  });

  it('an RFC 3339 timestamp', () => {
    expect(text('<13>2026-07-23T09:30:45.123+02:00 host daemon: t')).toMatchObject({
      timestamp: '2026-07-23T09:30:45.123+02:00',
      hostname: 'host',
      program: 'daemon',
      message: 't',
    });
  });

  it('no timestamp: all message (RFC 3164 §4.3.2), but for a leading "tag: "', () => {
    expect(text('<0>x\n')).toMatchObject({ program: undefined, message: 'x', anomalies: ['no-timestamp'] });
    expect(text('<13>1 file deleted')).toMatchObject({ format: 'rfc3164', program: undefined, message: '1 file deleted' });
    expect(text('<13>prog[7]: started')).toMatchObject({ program: 'prog', pid: '7', message: 'started', anomalies: ['no-timestamp'] });
    expect(text('<13>http://x y')).toMatchObject({ program: undefined, message: 'http://x y' });
  });

  it('an invalid date is no timestamp', () => {
    expect(text('<13>Foo 11 22:14:15 h p: m')).toMatchObject({ timestamp: undefined, message: 'Foo 11 22:14:15 h p: m' });
    expect(text('<13>Oct 11 25:14:15 h p: m')).toMatchObject({ timestamp: undefined });
  });

  it("keeps the message's own spaces and newlines, drops the trailing ones", () => {
    expect(text('<13>Nov 30 07:43:45 h p:  two\nlines\r\n\0')).toMatchObject({ message: ' two\nlines' });
  });

  it('a message that is not UTF-8 stays bytes', () => {
    const m = parse(Buffer.concat([Buffer.from('<13>Nov 30 07:43:45 h p: '), Buffer.from([0xff, 0x00, 0xc3])]));
    expect([...m.message]).toEqual([0xff, 0x00, 0xc3]);
  });

  it('a UTF-8 tag reads as UTF-8', () => {
    expect(text('<13>Nov 30 07:43:45 h prög: m').program).toBe('prög');
  });
});

describe('RFC 5424', () => {
  it('every header field, structured data and a BOM', () => {
    const m = text(
      '<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog 812 ID47 [exampleSDID@32473 iut="3" eventSource="Application"] \ufeffAn event',
    );
    expect(m).toMatchObject({
      format: 'rfc5424',
      facility: 20,
      severity: 5,
      timestamp: '2003-10-11T22:14:15.003Z',
      hostname: 'mymachine.example.com',
      program: 'evntslog',
      pid: '812',
      msgId: 'ID47',
      structuredData: '[exampleSDID@32473 iut="3" eventSource="Application"]',
      sdElements: [
        {
          id: 'exampleSDID@32473',
          params: [
            { name: 'iut', value: '3' },
            { name: 'eventSource', value: 'Application' },
          ],
        },
      ],
      message: 'An event',
      anomalies: [],
    });
  });

  it('NILVALUE: each field unknown', () => {
    expect(text('<13>1 - - - - - - minimal\n')).toMatchObject({
      format: 'rfc5424',
      timestamp: undefined,
      hostname: undefined,
      program: undefined,
      pid: undefined,
      msgId: undefined,
      structuredData: undefined,
      message: 'minimal',
    });
    expect(text('<13>1 - - - - - -')).toMatchObject({ format: 'rfc5424', message: '' });
  });

  it('escapes in structured data (RFC 5424 §6.3.3)', () => {
    const m = text(
      '<34>1 2026-07-23T09:30:45+02:00 host app 123 msg [meta@32473 value="escaped\\]bracket" quote="\\"" slash="a\\\\b" other="\\n"][x y="ü"] payload',
    );
    expect(m.sdElements).toEqual([
      {
        id: 'meta@32473',
        params: [
          { name: 'value', value: 'escaped]bracket' },
          { name: 'quote', value: '"' },
          { name: 'slash', value: 'a\\b' },
          { name: 'other', value: '\\n' },
        ],
      },
      { id: 'x', params: [{ name: 'y', value: 'ü' }] },
    ]);
    expect(m.message).toBe('payload');
  });

  it('structured data that breaks the grammar is kept in the message', () => {
    for (const sd of ['[a b= "c"]', '[a b="c"', '[a b=c]', '[]', '[a b="c"]x', '[a="b"]', `[${'i'.repeat(33)}]`]) {
      expect(text(`<13>1 - h app - - ${sd} rest`)).toMatchObject({
        format: 'rfc5424',
        hostname: 'h',
        program: 'app',
        structuredData: undefined,
        message: `${sd} rest`,
        anomalies: ['bad-structured-data'],
      });
    }
  });

  it('a header that breaks RFC 5424 is read as RFC 3164', () => {
    for (const s of ['<13>1 2003-10-11 h a p m - x', `<13>1 - h ${'a'.repeat(49)} - - - x`, '<13>1 - h a p m', '<13>1 -  h a p m - x']) {
      expect(text(s)).toMatchObject({ format: 'rfc3164', anomalies: ['no-timestamp'], message: s.slice(4) });
    }
  });

  it('readStructuredData reports where the elements end', () => {
    expect(readStructuredData('x[a][b c="d"] m', 1)).toEqual({
      elements: [
        { id: 'a', params: [] },
        { id: 'b', params: [{ name: 'c', value: 'd' }] },
      ],
      end: 13,
    });
  });
});

describe('bad input', () => {
  it('empty', () => {
    expect(text('')).toMatchObject({ facility: 1, severity: 5, message: '', anomalies: ['no-pri', 'no-timestamp'] });
  });

  it('a 64 KiB datagram of one token', () => {
    const s = `<13>Nov 30 07:43:45 ${'a'.repeat(65_000)}`;
    expect(text(s)).toMatchObject({ hostname: undefined, program: undefined, message: 'a'.repeat(65_000) });
  });
});

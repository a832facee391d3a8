/**
 * rsyslog's parser test cases (tests/parsertest-parse1.sh, copied into testdata/): each input is
 * parsed and rendered through rsyslog's template
 * `%PRI%,%syslogfacility-text%,%syslogseverity-text%,%timestamp%,%hostname%,%programname%,%syslogtag%,%msg%`.
 *
 * Deliberate differences, everywhere:
 * - MESSAGE has no leading space: rsyslog's %msg% keeps the space after `tag:`, journald (and its
 *   own syslog import) does not.
 * - SYSLOG_TIMESTAMP is the timestamp as sent (`AUG 10 ...`, `Mar 7 2008 19:06:53`,
 *   `2003-08-24T05:14:15.000003-07:00`); rsyslog re-renders it as `Mmm dd hh:mm:ss`, which is
 *   what the comparison does here too.
 * - We do not keep whether the tag ended in `:` (rsyslog's %syslogtag% does); program and pid are
 *   compared.
 * And in these cases (DIFFERENCES below).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SyslogMessage } from '../../verifier/syslog/message.js';
import { parseSyslog } from '../../verifier/syslog/parse.js';
import { TESTDATA } from '../testdata.js';

const { cases } = JSON.parse(readFileSync(`${TESTDATA}syslog/rsyslog/parse1_cases.json`, 'utf8')) as {
  cases: Array<{ input: string; expected_csv: string }>;
};

/** Where we read a case otherwise than rsyslog does, and why. */
const DIFFERENCES: Record<number, { rsyslogMessage: string; ours: string; reason: string }> = {
  18: {
    rsyslogMessage: '',
    ours: '[exampleSDID@32473 iut="3" eventSource= "Application" eventID="1011"][examplePriority@32473 class="high"]',
    reason:
      'STRUCTURED-DATA with a space after `=` breaks RFC 5424 §6.3.3 (PARAM-NAME "=" %d34): we keep it in MESSAGE (anomaly bad-structured-data) rather than read or drop it',
  },
  19: {
    rsyslogMessage: 'BOMAn application event log entry...',
    ours: '[exampleSDID@32473 iut="3" eventSource= "Application" eventID="1011"] BOMAn application event log entry...',
    reason: 'the same STRUCTURED-DATA; `BOM` here is the three letters, not U+FEFF',
  },
};

const FACILITIES = [
  'kern',
  'user',
  'mail',
  'daemon',
  'auth',
  'syslog',
  'lpr',
  'news',
  'uucp',
  'cron',
  'authpriv',
  'ftp',
  'ntp',
  'audit',
  'alert',
  'clock',
  'local0',
  'local1',
  'local2',
  'local3',
  'local4',
  'local5',
  'local6',
  'local7',
];
const SEVERITIES = ['emerg', 'alert', 'crit', 'err', 'warning', 'notice', 'info', 'debug'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** rsyslog's %timestamp%: `Mmm dd hh:mm:ss`, the day padded with a space, in the sender's own zone. */
function rsyslogTime(ts: string | undefined): string {
  const iso = /^\d{4}-(\d\d)-(\d\d)T(\d\d:\d\d:\d\d)/.exec(ts ?? '');
  if (iso) return `${MONTHS[Number(iso[1]) - 1]} ${iso[2]!.replace(/^0/, ' ')} ${iso[3]}`;
  const bsd = /^([A-Za-z]{3}) +(\d{1,2})(?: \d{4})? (\d\d:\d\d:\d\d)$/.exec(ts ?? '');
  if (!bsd) throw new Error(`no timestamp in ${ts}`);
  return `${bsd[1]![0]}${bsd[1]!.slice(1).toLowerCase()} ${bsd[2]!.padStart(2, ' ')} ${bsd[3]}`;
}

/** Our reading through rsyslog's template: the ways it may print what we do not keep. */
function renderings(m: SyslogMessage, message: string): string[] {
  const head = [
    m.facility * 8 + m.severity,
    FACILITIES[m.facility],
    SEVERITIES[m.severity],
    rsyslogTime(m.timestamp),
    m.hostname ?? '$RS_HOSTNAME',
    m.program ?? '',
  ].join(',');
  const tag = m.program === undefined ? '' : `${m.program}${m.pid === undefined ? '' : `[${m.pid}]`}`;
  return [tag, `${tag}:`].flatMap((t) => [`${head},${t},${message}`, `${head},${t}, ${message}`]);
}

describe('rsyslog parse1 cases', () => {
  it('holds the cases this test was written for', () => {
    expect(cases).toHaveLength(29);
  });

  it.each(cases.map((c, i) => [i, c.input, c.expected_csv] as const).filter(([i]) => !(i in DIFFERENCES)))('case %i: %s', (_i, input, expected) => {
    const m = parseSyslog(Buffer.from(input));
    expect(renderings(m, m.message.toString())).toContain(expected);
  });

  it.each(Object.entries(DIFFERENCES).map(([i, d]) => [Number(i), d] as const))('case %i differs on purpose', (i, d) => {
    const { input, expected_csv: expected } = cases[i]!;
    const m = parseSyslog(Buffer.from(input));
    expect(m.message.toString()).toBe(d.ours);
    expect(m.anomalies).toEqual(['bad-structured-data']);
    // Everything else reads as rsyslog reads it.
    expect(renderings(m, d.rsyslogMessage)).toContain(expected);
  });
});

import { join } from 'node:path';
import { hookosEntry } from '../../verifier/syslog/hookos-entry.js';
import { parseSyslog } from '../../verifier/syslog/parse.js';
import { decodeJournalEntry } from '../../test/syslog/journal-decode.js';
import { OracleViolation, type Target } from '../engine/target.js';
import { filesIn, jsonOf, TESTDATA, utf8 } from './testdata.js';

const RSYSLOG = join(TESTDATA, 'syslog/rsyslog');

/** One UDP datagram, as fleetd's receiver gets it, to the journal entry it writes. */
const target: Target = {
  name: 'syslog',
  kind: 'bytes',
  seedSources: ['syslog/rsyslog/fuzz-corpus/*', 'syslog/rsyslog/parse1_cases.json (each input line)'],
  seeds: () => [
    ...filesIn(join(RSYSLOG, 'fuzz-corpus')),
    ...jsonOf<{ cases: Array<{ input: string }> }>(join(RSYSLOG, 'parse1_cases.json')).cases.map((c) => utf8(c.input)),
  ],
  dictionary: [
    '<13>',
    '<165>1 ',
    '<0>',
    '<191>',
    '1 ',
    ' - ',
    '[',
    ']',
    '="',
    '\\"',
    '\\]',
    '\\\\',
    'Nov 30 07:43:45 ',
    '2003-10-11T22:14:15.003Z ',
    '+02:00',
    ': ',
    '[123]',
    '\n',
    '\r\n',
    '\u0000',
    '\xef\xbb\xbf',
    'BOM',
    'install_code=',
    'fleet.code=',
  ],
  maxLen: 65_507,
  // parse.ts promises linear time: real datagrams parse in microseconds.
  slowMs: 250,
  sources: ['verifier/syslog/'],
  oracle: 'never throws (parse.ts: "pure, never throws"); the entry is one journald takes, with one MESSAGE; severity ≤ 7, facility ≤ 23; under 250 ms',
  run(input) {
    const msg = parseSyslog(input);
    if (msg.severity > 7 || msg.facility > 23) throw new OracleViolation(`severity ${msg.severity}, facility ${msg.facility}`);
    const fields = decodeJournalEntry(hookosEntry(msg, '10.0.0.1'));
    if (fields.filter(([n]) => n === 'MESSAGE').length !== 1) throw new OracleViolation('the journal entry has no single MESSAGE');
  },
};

export default target;

import { join } from 'node:path';
import { decodeEvent, summarize } from '../../shared/eventlog/decode.js';
import { parseEventLog } from '../../shared/eventlog/parse.js';
import { replay } from '../../shared/eventlog/replay.js';
import { secureBootState } from '../../shared/eventlog/secureboot.js';
import { comparePcrs } from '../../shared/eventlog/verify.js';
import { OracleViolation, unlessParseError, type Target } from '../engine/target.js';
import { bytesOf, filesIn, TESTDATA } from './testdata.js';

const TOOLS = join(TESTDATA, 'eventlogs/tpm2-tools');
const KEYLIME = join(TESTDATA, 'eventlogs/keylime');

/**
 * A TCG event log (binary_bios_measurements) through everything the verifier does with one:
 * parse, replay every bank, Secure Boot state, decode and summarize every event, and compare
 * the replayed PCRs to themselves (which must match).
 */
const target: Target = {
  name: 'eventlog',
  kind: 'bytes',
  seedSources: ['eventlogs/tpm2-tools/*.bin', 'eventlogs/keylime/binary_bios_measurements*, mb_log.b64 (decoded)'],
  seeds: () => [
    ...filesIn(TOOLS, (n) => n.endsWith('.bin')),
    ...filesIn(KEYLIME, (n) => n.startsWith('binary_bios_measurements')),
    new Uint8Array(Buffer.from(Buffer.from(bytesOf(join(KEYLIME, 'mb_log.b64'))).toString('latin1'), 'base64')),
  ],
  dictionary: [
    'Spec ID Event03',
    'StartupLocality\0',
    'SP800-155 Event',
    Uint8Array.of(0x03, 0, 0, 0),
    Uint8Array.of(4, 0),
    Uint8Array.of(0x0b, 0),
    Uint8Array.of(0x0c, 0),
    Uint8Array.of(0x0d, 0),
    Uint8Array.of(0x12, 0),
    Uint8Array.of(0x14, 0),
    Uint8Array.of(0x20, 0),
    Uint8Array.of(3, 0, 0, 0),
    Uint8Array.of(1, 0, 0, 0x80),
    Uint8Array.of(2, 0, 0, 0x80),
    Uint8Array.of(0xe0, 0, 0, 0x80),
    Uint8Array.of(0x0a, 0, 0, 0x80),
    Uint8Array.of(0xff, 0xff, 0xff, 0xff),
    Uint8Array.of(0x61, 0xdf, 0xe4, 0x8b),
    'SecureBoot',
    'PK',
    'KEK',
    'db',
    'dbx',
    'MokList',
  ],
  // The real logs run to 50 KiB; what a mutation breaks is as likely in the first events.
  maxLen: 64 * 1024,
  sources: ['shared/eventlog/', 'shared/bytes/'],
  oracle: 'an EventLog or a ParseError (eventlog-malformed, eventlog-empty); what parses replays, and its replay matches itself',
  run(input) {
    const log = unlessParseError(() => parseEventLog(input));
    if (!log) return;
    const pcrs = replay(log);
    secureBootState(log);
    for (const e of log) summarize(decodeEvent(e));
    for (const [bank, values] of pcrs) if (!comparePcrs(log, bank, values).ok) throw new OracleViolation(`the ${bank} replay does not match itself`);
  },
};

export default target;

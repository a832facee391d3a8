import { join } from 'node:path';
import { decodeEvent, summarize } from '../../shared/eventlog/decode.js';
import { parseEventLog } from '../../shared/eventlog/parse.js';
import { replay } from '../../shared/eventlog/replay.js';
import { secureBootState } from '../../shared/eventlog/secureboot.js';
import {
  EV_EFI_PLATFORM_FIRMWARE_BLOB2,
  EV_EFI_VARIABLE_AUTHORITY,
  EV_EFI_VARIABLE_BOOT,
  EV_EFI_VARIABLE_DRIVER_CONFIG,
  EV_NO_ACTION,
  TPM_ALG_SHA1,
  TPM_ALG_SHA256,
  TPM_ALG_SHA384,
  TPM_ALG_SHA512,
  TPM_ALG_SM3_256,
} from '../../shared/eventlog/types.js';
import { comparePcrs } from '../../shared/eventlog/verify.js';
import { OracleViolation, unlessParseError, type Target } from '../engine/target.js';
import { bytesOf, filesIn, TESTDATA } from './testdata.js';
import { le } from './tokens.js';

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
    // The Spec ID event's algorithms and digest sizes (SHA-1's 20 bytes, SHA-256's 32).
    ...le(2, TPM_ALG_SHA1, TPM_ALG_SHA256, TPM_ALG_SHA384, TPM_ALG_SHA512, TPM_ALG_SM3_256, 20, 32),
    ...le(4, EV_NO_ACTION, EV_EFI_VARIABLE_DRIVER_CONFIG, EV_EFI_VARIABLE_BOOT, EV_EFI_VARIABLE_AUTHORITY, EV_EFI_PLATFORM_FIRMWARE_BLOB2, 0xffffffff),
    // The first field of EFI_GLOBAL_VARIABLE's GUID, 8BE4DF61-93CA-11D2-AA0D-00E098032B8C.
    ...le(4, 0x8be4df61),
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

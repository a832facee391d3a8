/**
 * `fleet eventlog [--json] FILE`: decode a TCG PC Client event log (binary, or base64 text such as
 * keylime's mb_log.b64), replay it, and read its Secure Boot state. Bad input ends in one line on
 * stderr naming the error code, and exit status 1.
 */
import { runFileCommand } from '../file-command.js';
import { toHex } from '../../shared/bytes/hex.js';
import { FleetError } from '../../shared/errors.js';
import { decodeEvent, summarize } from '../../shared/eventlog/decode.js';
import type { EventLog } from '../../shared/eventlog/log.js';
import { parseEventLog } from '../../shared/eventlog/parse.js';
import { replay, type PcrValues } from '../../shared/eventlog/replay.js';
import { secureBootState, type SecureBootState } from '../../shared/eventlog/secureboot.js';

export function run(args: string[]): Promise<number> {
  return runFileCommand('eventlog', args, (raw) => {
    const { bytes, base64 } = unwrapBase64(raw);
    try {
      const log = parseEventLog(bytes);
      const pcrs = replay(log);
      // Without a quote no bank is proven: read the one a quote would cover, else the log's first.
      const secureBoot = secureBootState(log, log.bankIndex('sha256') >= 0 ? 'sha256' : (log.banks[0]?.name ?? 'sha256'));
      return { json: jsonReport(log, pcrs, secureBoot), text: textReport(log, pcrs, secureBoot) };
    } catch (err) {
      if (base64 && err instanceof FleetError) throw new FleetError(err.code, `read as base64 text: ${err.message}`);
      throw err;
    }
  });
}

/** The bytes, base64-decoded when the whole file is base64 text (line breaks allowed). */
function unwrapBase64(bytes: Buffer): { bytes: Uint8Array; base64: boolean } {
  // A binary log starts with a little-endian PCR index, so its first bytes are never base64 text.
  const text = bytes.toString('latin1').replace(/\s+/g, '');
  const base64 = text.length > 0 && text.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(text);
  return base64 ? { bytes: Buffer.from(text, 'base64'), base64 } : { bytes, base64 };
}

function jsonReport(log: EventLog, pcrs: Map<string, PcrValues>, secureBoot: SecureBootState): object {
  const banks: Record<string, Record<string, string>> = {};
  for (const [bank, values] of pcrs) banks[bank] = Object.fromEntries([...values].map(([pcr, v]) => [String(pcr), toHex(v)]));
  return { pcrs: banks, secureBoot: secureBoot.enabled, events: log.length };
}

function textReport(log: EventLog, pcrs: Map<string, PcrValues>, secureBoot: SecureBootState): string {
  // Show one digest per event: sha256 when the log has it (the usual policy bank), else its first.
  const shown = Math.max(0, log.bankIndex('sha256'));
  const bankName = log.banks[shown]!.name;
  const lines = [`${log.format} event log, ${log.length} events, banks ${log.banks.map((b) => b.name).join(', ')}`, ''];
  lines.push(`${'#'.padStart(4)}  PCR  ${'type'.padEnd(33)} ${`${bankName}`.padEnd(16)}  description`);
  for (let i = 0; i < log.length; i++) {
    const event = log.event(i);
    const digest = log.digestOf(i, shown);
    const short = digest ? toHex(digest.subarray(0, 8)) : '-';
    lines.push(
      `${String(i).padStart(4)}  ${String(event.pcr).padStart(3)}  ${event.typeName.padEnd(33)} ${short.padEnd(16)}  ${summarize(decodeEvent(event))}`,
    );
  }
  for (const [bank, values] of pcrs) {
    lines.push('', `${bank}:`);
    for (const [pcr, value] of values) lines.push(`  PCR ${String(pcr).padStart(2)}: ${toHex(value)}`);
  }
  const state = secureBoot.enabled === null ? 'unknown' : secureBoot.enabled ? 'enabled' : 'disabled';
  lines.push('', `Secure Boot: ${state}`, ...secureBoot.problems.map((p) => `  ${p}`), '');
  return lines.join('\n');
}

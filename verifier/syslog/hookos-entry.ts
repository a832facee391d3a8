/**
 * The journal entry fleetd writes for one HookOS syslog message: what an operator reads with
 * `journalctl -t hookos HOOKOS_HOST=<node address>` (the runbook's "Logs and PXE state").
 */
import { encodeJournalEntry } from './journal-native.js';
import { withoutInstallCodes, withoutInstallCodesText } from './install-code-redaction.js';
import type { SyslogMessage } from './message.js';

/**
 * rsyslog's default maxMessageSize, which the lab's receiver had. A larger MESSAGE is cut here, so
 * that an entry always fits one datagram: journald takes a bigger one only as a memfd, which the
 * socket module cannot pass.
 */
export const MAX_MESSAGE_BYTES = 8192;

export function hookosEntry(msg: SyslogMessage, sender: string, maxBytes = MAX_MESSAGE_BYTES): Buffer {
  const fields: Array<[string, string | Uint8Array]> = [
    ['MESSAGE', capped(withoutInstallCodes(msg.message), maxBytes)],
    ['PRIORITY', String(msg.severity)],
    ['SYSLOG_FACILITY', String(msg.facility)],
    ['SYSLOG_IDENTIFIER', 'hookos'],
    ['HOOKOS_HOST', sender],
  ];
  const optional: Array<[string, string | undefined]> = [
    ['HOOKOS_PROGRAM', msg.program],
    ['HOOKOS_PID', msg.pid],
    ['HOOKOS_HOSTNAME', msg.hostname],
    ['SYSLOG_TIMESTAMP', msg.timestamp],
    ['HOOKOS_MSGID', msg.msgId],
  ];
  // Every field the sender wrote is blanked as the message is: a code in any of them is as live.
  for (const [name, value] of optional) if (value !== undefined) fields.push([name, withoutInstallCodesText(value)]);
  if (msg.structuredData !== undefined) fields.push(['HOOKOS_STRUCTURED_DATA', capped(Buffer.from(withoutInstallCodesText(msg.structuredData)), maxBytes)]);
  for (const anomaly of msg.anomalies) fields.push(['HOOKOS_SYSLOG_ANOMALY', anomaly]);
  return encodeJournalEntry(fields);
}

/** At most `max` bytes, cut before a UTF-8 sequence, with a marker saying how long it was. */
export function capped(value: Buffer, max: number): Buffer {
  if (value.length <= max) return value;
  let cut = max;
  // Continuation bytes (10xxxxxx) belong to the character before: cut before its lead byte.
  while (cut > 0 && cut > max - 3 && (value[cut]! & 0xc0) === 0x80) cut--;
  return Buffer.concat([value.subarray(0, cut), Buffer.from(` [fleetd: truncated, ${value.length} bytes in all]`)]);
}

/**
 * One syslog datagram as fleetd reads it. Parsing never fails: what a sender got wrong is named in
 * `anomalies` and the bytes that could not be read as a header stay in `message`, so nothing a
 * HookOS node said is lost on the way to the journal.
 */
export type SyslogFormat = 'rfc5424' | 'rfc3164';

/**
 * - `no-pri`: the datagram does not start with `<`; PRI 13 (user.notice) is assumed, RFC 3164 §4.3.3.
 * - `bad-pri`: it starts with `<` but not with `<0>`..`<191>`; PRI 13, and the whole datagram is the message.
 * - `no-timestamp`: an RFC 3164 message without a timestamp; per RFC 3164 §4.3.2 the rest is the
 *   message (a leading `tag:` is still read as the program).
 * - `bad-structured-data`: an RFC 5424 header whose STRUCTURED-DATA breaks the grammar; it is kept
 *   in the message, not dropped.
 */
export type SyslogAnomaly = 'no-pri' | 'bad-pri' | 'no-timestamp' | 'bad-structured-data';

export interface SdParam {
  name: string;
  value: string;
}

export interface SdElement {
  id: string;
  params: SdParam[];
}

export interface SyslogMessage {
  format: SyslogFormat;
  /** 0 (kern) .. 23 (local7). */
  facility: number;
  /** 0 (emerg) .. 7 (debug): journald's PRIORITY. */
  severity: number;
  /** The timestamp as the sender wrote it (RFC 3164 `Mmm dd hh:mm:ss` and its variants, or RFC 3339). */
  timestamp: string | undefined;
  /** The host name the message claims (not the sender's address). */
  hostname: string | undefined;
  /** The program (RFC 3164 TAG without `[pid]:`, RFC 5424 APP-NAME). */
  program: string | undefined;
  /** RFC 3164 `[pid]`, RFC 5424 PROCID (not always a number). */
  pid: string | undefined;
  /** RFC 5424 MSGID. */
  msgId: string | undefined;
  /** RFC 5424 STRUCTURED-DATA as sent, when it is valid and not `-`. */
  structuredData: string | undefined;
  /** The same, read: escapes (`\"`, `\\`, `\]`) undone. */
  sdElements: SdElement[];
  /** The MSG bytes, as sent: no BOM, no trailing newline, not decoded (journald takes bytes). */
  message: Buffer;
  anomalies: SyslogAnomaly[];
}

/**
 * RFC 5424: `1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID STRUCTURED-DATA [MSG]` after the PRI, `-`
 * for a field the sender does not know (NILVALUE), MSG optionally led by a UTF-8 BOM. Strings are
 * latin1 (one char per byte): parse.ts decodes them.
 */
import type { SdElement, SyslogMessage } from './message.js';
import { readStructuredData } from './structured-data.js';
import { isRfc3339 } from './timestamps.js';

export type Rfc5424Header = Pick<SyslogMessage, 'timestamp' | 'hostname' | 'program' | 'pid' | 'msgId' | 'structuredData' | 'sdElements'> & {
  /** False when STRUCTURED-DATA breaks the grammar: MSG then starts where it did. */
  sdValid: boolean;
  messageStart: number;
};

const PRINTUSASCII = /^[\x21-\x7e]+$/;
const BOM = '\xef\xbb\xbf';
// RFC 5424 §6: the longest each header field may be.
const HEADER_FIELDS = [
  ['timestamp', 64],
  ['hostname', 255],
  ['program', 48],
  ['pid', 128],
  ['msgId', 32],
] as const;

type HeaderField = (typeof HEADER_FIELDS)[number][0];

/**
 * The header after `<PRI>1 ` (`at` is past the version's space); undefined when the fields up to
 * STRUCTURED-DATA do not follow RFC 5424, so the caller can read the datagram another way.
 */
export function readRfc5424(text: string, at: number): Rfc5424Header | undefined {
  const fields: Partial<Record<HeaderField, string>> = {};
  let pos = at;
  for (const [name, max] of HEADER_FIELDS) {
    const end = text.indexOf(' ', pos);
    if (end === -1 || end - pos > max) return undefined;
    const token = text.slice(pos, end);
    if (!PRINTUSASCII.test(token)) return undefined;
    if (token !== '-') fields[name] = token;
    pos = end + 1;
  }
  if (fields.timestamp !== undefined && !isRfc3339(fields.timestamp)) return undefined;
  const header = (structuredData: string | undefined, sdElements: SdElement[], sdValid: boolean, start: number): Rfc5424Header => ({
    timestamp: fields.timestamp,
    hostname: fields.hostname,
    program: fields.program,
    pid: fields.pid,
    msgId: fields.msgId,
    structuredData,
    sdElements,
    sdValid,
    messageStart: start,
  });
  if (text[pos] === '-' && (pos + 1 === text.length || text[pos + 1] === ' ')) return header(undefined, [], true, messageStart(text, pos + 1));
  const sd = readStructuredData(text, pos);
  if (!sd || (sd.end < text.length && text[sd.end] !== ' ')) return header(undefined, [], false, pos);
  return header(text.slice(pos, sd.end), sd.elements, true, messageStart(text, sd.end));
}

/** After STRUCTURED-DATA: one space, then MSG, whose BOM only says it is UTF-8. */
function messageStart(text: string, pos: number): number {
  if (text[pos] === ' ') pos++;
  return text.startsWith(BOM, pos) ? pos + BOM.length : pos;
}

/**
 * RFC 3164 ("BSD syslog"): `TIMESTAMP HOSTNAME TAG: MSG` after the PRI, where real senders leave
 * out the host name (busybox `syslogd -R`, glibc's syslog(3) through a relay) or the colon. Where
 * RFC 3164 leaves it open, this reads a header the way rsyslog does, so the journal shows the same
 * program and host name the lab's rsyslog receiver showed: the token after the timestamp is the
 * host name when it looks like one and does not end in `:`, and the next token is the tag.
 */
import { isRfc3339, readBsdTimestamp } from './timestamps.js';

/** Strings are still latin1 (one char per byte): parse.ts decodes them. */
export interface Rfc3164Header {
  timestamp: string | undefined;
  hostname: string | undefined;
  program: string | undefined;
  pid: string | undefined;
  /** Index in the text where MSG starts. */
  messageStart: number;
}

const HOSTNAME = /^[A-Za-z0-9._:-]+$/;
const HOSTNAME_MAX = 255;
// rsyslog reads programs of 40 and more characters; a longer first token is message text.
const TAG_MAX = 128;

export function readRfc3164(text: string, at: number): Rfc3164Header {
  let pos = skipSpaces(text, at);
  const time = readTimestamp(text, pos);
  // RFC 3164 §4.3.2: no timestamp, so no header: it is all message, but for a leading `tag: `.
  if (!time) return header(undefined, undefined, readTag(text, pos, true));
  pos = skipSpaces(text, time.end);
  const end = tokenEnd(text, pos);
  const token = text.slice(pos, end);
  let hostname: string | undefined;
  if (token.length > 0 && token.length <= HOSTNAME_MAX && HOSTNAME.test(token) && !token.endsWith(':')) {
    hostname = token;
    pos = skipOneSpace(text, end);
  }
  return header(time.timestamp, hostname, readTag(text, pos, false));
}

function header(timestamp: string | undefined, hostname: string | undefined, tag: Tag): Rfc3164Header {
  return { timestamp, hostname, program: tag.program, pid: tag.pid, messageStart: tag.messageStart };
}

function readTimestamp(text: string, pos: number): { timestamp: string; end: number } | undefined {
  const end = tokenEnd(text, pos);
  const token = text.slice(pos, Math.min(end, pos + 40));
  return isRfc3339(token) ? { timestamp: token, end } : readBsdTimestamp(text, pos);
}

/**
 * The tag is the token at `pos` up to and including its first `:` (`prog[pid]:`), or the whole
 * token when it has none. `colonOnly`: only a token that ends in `:` is a tag.
 */
type Tag = Pick<Rfc3164Header, 'program' | 'pid' | 'messageStart'>;

function readTag(text: string, pos: number, colonOnly: boolean): Tag {
  const end = tokenEnd(text, pos);
  const colon = text.slice(pos, end).indexOf(':');
  const tagEnd = colon === -1 ? end : pos + colon + 1;
  const tag = text.slice(pos, tagEnd);
  const isTag = tag.length > 0 && tag.length <= TAG_MAX && (!colonOnly || (tag.endsWith(':') && tagEnd === end));
  if (!isTag) return { program: undefined, pid: undefined, messageStart: skipOneSpace(text, pos) };
  let program = tag.endsWith(':') ? tag.slice(0, -1) : tag;
  let pid: string | undefined;
  const bracket = program.indexOf('[');
  if (bracket !== -1) {
    if (program.endsWith(']')) pid = program.slice(bracket + 1, -1) || undefined;
    program = program.slice(0, bracket);
  }
  // `: hello`, `[::1]`, `[INFO]:`: no program in it, so it is message text, kept whole.
  if (!program) return { program: undefined, pid: undefined, messageStart: pos };
  return { program, pid, messageStart: skipOneSpace(text, tagEnd) };
}

function tokenEnd(text: string, pos: number): number {
  const space = text.indexOf(' ', pos);
  return space === -1 ? text.length : space;
}

function skipSpaces(text: string, pos: number): number {
  while (text[pos] === ' ') pos++;
  return pos;
}

/** MSG starts after the one space that separates it from the header; more spaces are its own. */
function skipOneSpace(text: string, pos: number): number {
  return text[pos] === ' ' ? pos + 1 : pos;
}

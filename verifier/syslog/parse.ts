/**
 * One UDP datagram → one SyslogMessage. RFC 5424 when the PRI is followed by version `1` and a
 * header that follows RFC 5424; RFC 3164 otherwise (which is also what busybox `syslogd -R` and
 * `logger --rfc3164` send). Pure, never throws, linear in the datagram's length.
 */
import type { SdElement, SyslogAnomaly, SyslogFormat, SyslogMessage } from './message.js';
import { DEFAULT_PRI, facilityOf, readPri, severityOf } from './priority.js';
import { readRfc3164 } from './rfc3164.js';
import { readRfc5424 } from './rfc5424.js';

type Header = Partial<Pick<SyslogMessage, 'timestamp' | 'hostname' | 'program' | 'pid' | 'msgId' | 'structuredData'>> & { sdElements?: SdElement[] };

export function parseSyslog(datagram: Uint8Array): SyslogMessage {
  // latin1 maps each byte to one char, so indexes are byte offsets and nothing is lost before
  // the fields are decoded as UTF-8.
  const text = Buffer.from(datagram.buffer, datagram.byteOffset, trimmedLength(datagram)).toString('latin1');
  const anomalies: SyslogAnomaly[] = [];
  const found = readPri(text);
  const pri = found?.pri ?? DEFAULT_PRI;

  if (!found && text.startsWith('<')) {
    anomalies.push('bad-pri');
    return build('rfc3164', pri, {}, text, anomalies);
  }
  if (!found) anomalies.push('no-pri');
  const at = found?.end ?? 0;

  const h5424 = found && text.startsWith('1 ', at) ? readRfc5424(text, at + 2) : undefined;
  if (h5424) {
    if (!h5424.sdValid) anomalies.push('bad-structured-data');
    const header: Header = {
      timestamp: decode(h5424.timestamp),
      hostname: decode(h5424.hostname),
      program: decode(h5424.program),
      pid: decode(h5424.pid),
      msgId: decode(h5424.msgId),
      structuredData: decode(h5424.structuredData),
      sdElements: h5424.sdElements.map((e) => ({ id: e.id, params: e.params.map((p) => ({ name: p.name, value: decode(p.value)! })) })),
    };
    return build('rfc5424', pri, header, text.slice(h5424.messageStart), anomalies);
  }

  const h3164 = readRfc3164(text, at);
  if (h3164.timestamp === undefined) anomalies.push('no-timestamp');
  const header: Header = { timestamp: h3164.timestamp, hostname: h3164.hostname, program: decode(h3164.program), pid: decode(h3164.pid) };
  return build('rfc3164', pri, header, text.slice(h3164.messageStart), anomalies);
}

// One literal with every field, no spreads: V8 builds spread objects with undefined fields some
// hundred times slower, and this runs for every datagram.
function build(format: SyslogFormat, pri: number, h: Header, message: string, anomalies: SyslogAnomaly[]): SyslogMessage {
  return {
    format,
    facility: facilityOf(pri),
    severity: severityOf(pri),
    timestamp: h.timestamp,
    hostname: h.hostname,
    program: h.program,
    pid: h.pid,
    msgId: h.msgId,
    structuredData: h.structuredData,
    sdElements: h.sdElements ?? [],
    message: Buffer.from(message, 'latin1'),
    anomalies,
  };
}

/** The datagram's length without trailing newlines and NULs (busybox ends each line with `\n`). */
function trimmedLength(d: Uint8Array): number {
  let n = d.length;
  while (n > 0 && (d[n - 1] === 0x0a || d[n - 1] === 0x0d || d[n - 1] === 0)) n--;
  return n;
}

/** Header fields are ASCII by the RFCs; a sender's UTF-8 still reads as UTF-8. */
function decode(latin1: string | undefined): string | undefined {
  return latin1 === undefined ? undefined : Buffer.from(latin1, 'latin1').toString('utf8');
}

/**
 * The timestamps syslog senders write: RFC 3164's `Mmm dd hh:mm:ss`, with the variants real
 * devices send (one space before a one-digit day, a year before the time, a colon after it), and
 * RFC 3339, which RFC 5424 requires and many RFC 3164 senders use too.
 */

const MONTHS = new Set(['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']);
// Bounded quantifiers only: a datagram is untrusted and may be 64 KiB of anything.
const BSD = /([A-Za-z]{3}) {1,2}(\d{1,2})(?: \d{4})? (\d\d):(\d\d):(\d\d)(:?)(?= |$)/y;
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)$/;
const RFC3339_MAX = 35;

/** A BSD timestamp at `at`: its text (without a trailing colon) and where it ends (after the colon). */
export function readBsdTimestamp(text: string, at: number): { timestamp: string; end: number } | undefined {
  BSD.lastIndex = at;
  const m = BSD.exec(text);
  if (!m) return undefined;
  const [all, month, day, hh, mm, ss, colon] = m as unknown as [string, string, string, string, string, string, string];
  const valid = MONTHS.has(month.toLowerCase()) && +day >= 1 && +day <= 31 && +hh <= 23 && +mm <= 59 && +ss <= 60;
  return valid ? { timestamp: all.slice(0, all.length - colon.length), end: at + all.length } : undefined;
}

/** True for an RFC 3339 date-time (fractions of up to 9 digits, `Z` or a numeric offset). */
export function isRfc3339(token: string): boolean {
  return token.length <= RFC3339_MAX && RFC3339.test(token);
}

/**
 * The PRI part, `<facility * 8 + severity>` (RFC 5424 §6.2.1, RFC 3164 §4.1.1).
 */

/** RFC 3164 §4.3.3: a message without a usable PRI is user.notice. */
export const DEFAULT_PRI = 13;

const PRI = /^<(\d{1,3})>/;

/** The PRI at the start of `text` and where it ends; undefined unless it is `<0>`..`<191>`. */
export function readPri(text: string): { pri: number; end: number } | undefined {
  const m = PRI.exec(text);
  if (!m) return undefined;
  const pri = Number(m[1]);
  return pri <= 191 ? { pri, end: m[0].length } : undefined;
}

export function facilityOf(pri: number): number {
  return pri >> 3;
}

export function severityOf(pri: number): number {
  return pri & 7;
}

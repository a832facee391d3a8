import type { JournalLine } from '../journal-line.js';
import { ATTEST_LINES } from './lines.js';

/** The switch port an LLDP frame names, or why none is known. */
export type SeenPort = { port: string /** every name the frame gives the port (Port ID, Port Description) */; names: string[] } | { port: null; why: string };

export type Cabling = { ok: true } | { ok: false; journal: JournalLine };

const norm = (s: string) => s.trim().toLowerCase();

/** Two names of a switch port are the same port: equal but for case and surrounding space. */
export const samePort = (a: string, b: string): boolean => norm(a) === norm(b);

/**
 * Is the machine on the port its entry declares? The declared `switch_port` is the port's name
 * as the switch gives it in LLDP (its Port ID, or its Port Description), compared exactly but for
 * case and surrounding space: no guessing from numbers, since a wrong guess provisions the wrong port.
 */
export function checkCabling(hostname: string, expected: string, seen: SeenPort): Cabling {
  if (seen.port === null) return { ok: false, journal: ATTEST_LINES.noSwitchPort(hostname, seen.why) };
  if (seen.names.some((n) => samePort(n, expected))) return { ok: true };
  return { ok: false, journal: ATTEST_LINES.otherPort(hostname, seen.port, expected) };
}

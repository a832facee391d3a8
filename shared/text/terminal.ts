import { escapeChar, unsafeCharClass } from './char-classes.js';

const UNSAFE = new RegExp(unsafeCharClass(), 'gu');
/** Outside printable ASCII: what printableAscii escapes. */
const NOT_ASCII = /[^\u0020-\u007e]/gu;

/**
 * Text a peer controls (a switch's LLDP strings, a claimed serial, an EK certificate's names) as a
 * terminal may show it: every control character, line separator, bidirectional control (which
 * reorders what follows it) and zero-width character escaped (char-classes.ts), so none moves the
 * cursor, clears the screen or disguises a hash.
 */
export function printable(s: string): string {
  return s.replace(UNSAFE, escapeChar);
}

/**
 * The same for text an operator compares by eye with other evidence (fleet attest approve's
 * serials and certificate fields): everything outside printable ASCII escaped, so a fullwidth or
 * look-alike serial cannot pass for the ASCII one it imitates.
 */
export function printableAscii(s: string): string {
  return s.replace(NOT_ASCII, escapeChar);
}

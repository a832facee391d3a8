/**
 * Text a peer controls (a switch's LLDP strings, a claimed serial, an EK certificate's names) as a
 * terminal may show it: every control character, and the bidirectional overrides that reorder
 * what follows them, escaped, so none moves the cursor, clears the screen or disguises a hash.
 */
export function printable(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => {
    const n = c.charCodeAt(0);
    return n <= 0xff ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16).padStart(4, '0')}`;
  });
}

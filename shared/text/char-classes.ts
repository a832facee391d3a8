/**
 * The characters no peer-controlled text may carry as it is, described once, in classes: a
 * terminal acts on them, YAML or a quoted template breaks on them, or a reader cannot see them.
 * printable() escapes them for a terminal and the reconciler's quote guard refuses them in a
 * Template's quotes; both are derived from these ranges.
 */
export type UnsafeClass = 'control character' | 'line separator' | 'bidi control' | 'zero-width character';

const RANGES: ReadonlyArray<readonly [UnsafeClass, number, number]> = [
  // C0 and DEL; C1, whose U+0085 (NEL) YAML 1.1 folds as a line break inside quotes.
  ['control character', 0x00, 0x1f],
  ['control character', 0x7f, 0x9f],
  ['line separator', 0x2028, 0x2029],
  // They reorder what follows them, so a hash or serial reads other than it is.
  ['bidi control', 0x061c, 0x061c],
  ['bidi control', 0x200e, 0x200f],
  ['bidi control', 0x202a, 0x202e],
  ['bidi control', 0x2066, 0x2069],
  ['zero-width character', 0x200b, 0x200d],
  ['zero-width character', 0x2060, 0x2060],
  ['zero-width character', 0xfeff, 0xfeff],
];

const hex = (n: number) => n.toString(16).padStart(4, '0');

/** A character class for a RegExp, of the ranges plus `extra` (already escaped for a class). */
export function unsafeCharClass(extra = ''): string {
  return `[${extra}${RANGES.map(([, from, to]) => (from === to ? `\\u${hex(from)}` : `\\u${hex(from)}-\\u${hex(to)}`)).join('')}]`;
}

/** The class of `c` (one character), or null when it is none of them. */
export function unsafeClassOf(c: string): UnsafeClass | null {
  const n = c.codePointAt(0)!;
  return RANGES.find(([, from, to]) => n >= from && n <= to)?.[0] ?? null;
}

/** A character's escape as the lines show it: \xNN below U+0100, \uNNNN in the BMP, \u{N} beyond. */
export function escapeChar(c: string): string {
  const n = c.codePointAt(0)!;
  if (n <= 0xff) return `\\x${n.toString(16).padStart(2, '0')}`;
  return n <= 0xffff ? `\\u${hex(n)}` : `\\u{${n.toString(16)}}`;
}

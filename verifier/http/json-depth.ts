/**
 * How deep a JSON text nests, found before it is parsed. A body of `[[[…]]]` costs JSON.parse and
 * the schema's walk seconds of fleetd's one thread; no body of the protocol nests deeper than 3.
 * This scan is one pass over the text, allocation-free, so such a body costs what reading it does.
 */
export const MAX_JSON_DEPTH = 8;

/** Whether `text` opens more than `max` arrays and objects inside each other (strings skipped). */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character, a quote included
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

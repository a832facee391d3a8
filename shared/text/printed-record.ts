import { appendFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The record the runbook's oracle reads (test/runbook/): with FLEET_PRINTED_LINES naming a file,
 * every line fleet's code says (a console, journal, action or approve line, an audit line) is
 * appended to it as one JSON string. Lines a test builds itself, to compare, are left out: the
 * record holds what the code said, so a reworded line is missed against the runbook's words.
 * Unset, as everywhere but the test suite, it costs a property read.
 */
const FILE = process.env.FLEET_PRINTED_LINES;

/** The repository's test folder, by where this file sits (shared/text/); a bundle has none. */
const TESTS = fileURLToPath(new URL('../../test/', import.meta.url));

export function recordPrinted(text: string): void {
  if (!FILE) return;
  // Frames: this function, the line's maker, whoever asked for the line.
  const caller = new Error().stack?.split('\n')[3] ?? '';
  if (caller.includes(TESTS)) return;
  appendFileSync(FILE, `${JSON.stringify(text)}\n`);
}

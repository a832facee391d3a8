import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { actionLinesPage } from '../../scripts/docs/action-lines-page.js';
import { approveLinesPage } from '../../scripts/docs/approve-lines-page.js';
import { consoleLinesPage } from '../../scripts/docs/console-lines-page.js';
import { journalLinesPage } from '../../scripts/docs/journal-lines-page.js';
import { quotes } from './quoted-line.js';

/** Every line fleet defines, as the reference pages show it (rendered from the definitions). */
const TEMPLATES = [journalLinesPage, consoleLinesPage, actionLinesPage, approveLinesPage].flatMap((page) =>
  [...page.render().matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replaceAll('\\|', '|')),
);

/**
 * What a quotation may say before the line: a journal line's kind, as NetBox shows it; install's
 * word, before a line of the installer's own that it relays.
 */
const BEFORE = /^(?:info|success|warning|danger|install): /;

const isDefined = (quotation: string): boolean => TEMPLATES.some((t) => quotes(quotation, t) || quotes(quotation.replace(BEFORE, ''), t));

interface Quotation {
  where: string;
  text: string;
}

/** The code spans of a Markdown table's cells in the columns whose heading names lines or the journal. */
function tableLines(file: string): Quotation[] {
  const rows = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8').split('\n');
  const found: Quotation[] = [];
  let columns: number[] = [];
  rows.forEach((row, n) => {
    if (!row.startsWith('|')) {
      columns = [];
      return;
    }
    const cells = row
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim());
    if (/^\|[-| ]+\|$/.test(rows[n + 1] ?? '')) {
      columns = cells.flatMap((c, i) => (/line|^journal/.test(c) ? [i] : []));
      return;
    }
    for (const i of columns)
      for (const m of (cells[i] ?? '').matchAll(/`([^`]+)`/g)) {
        // One or two words name a field, a kind or a verdict; a line says more.
        if (m[1]!.split(' ').length > 2) found.push({ where: `${file}:${n + 1}`, text: m[1]! });
      }
  });
  return found;
}

/** Anywhere in prose: a code span that opens as an agent's or a Template action's line does. */
function promptedLines(file: string): Quotation[] {
  const text = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
  return text.split('\n').flatMap((row, n) =>
    [...row.matchAll(/`((?:attest|clock|lldp|securityfs|wipe|install|image|next-boot|reboot): [^`]+)`/g)].map((m) => ({
      where: `${file}:${n + 1}`,
      text: m[1]!,
    })),
  );
}

const DOCS = ['README.md', 'docs/operations.md', 'docs/protocol.md', 'docs/architecture.md', 'docs/testing.md'];

describe('lines quoted in the docs', () => {
  const quoted = [...tableLines('docs/operations.md'), ...DOCS.flatMap(promptedLines)];

  it('are found', () => {
    expect(quoted.length).toBeGreaterThan(20);
  });

  it.each(quoted.map((q) => [q.where, q.text] as const))('%s: `%s` is a defined line', (_where, text) => {
    expect(isDefined(text), `no line definition says "${text}"; quote the line as docs/reference shows it`).toBe(true);
  });
});

describe('a quotation', () => {
  it('is a fragment of a template, each side standing for words the other says', () => {
    expect(quotes('<node> attested on port N, expected M', '<node> attested on port <port>, expected <declared port>')).toBe(true);
    expect(quotes('the node asked again for the Talos config fleetd served it', 'the node asked again for the <what> fleetd served it (at <at>)')).toBe(true);
    expect(quotes('attest: no verdict after 5 tries; read …', 'attest: no verdict after <tries> tries; read journalctl -u fleetd')).toBe(true);
  });

  it('that says other words, or more, is not', () => {
    expect(quotes('<node> attested on port N, expected M', '<node> attested on switch port <port>, expected <declared port>')).toBe(false);
    expect(quotes('wipe: nothing wiped at all', 'wipe: nothing wiped')).toBe(false);
    expect(quotes('attest: try N failed', 'attest: try <N> did not pass')).toBe(false);
    // An argument is a word or two: it does not take the words of another line.
    expect(quotes('<node> attested at port N, expected M', '<node>: desired_action <action> waits for Workflow <run> to end')).toBe(false);
  });
});

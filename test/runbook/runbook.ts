import { readFileSync } from 'node:fs';
import { TESTDATA } from '../testdata.js';

/** The lab's "Provision a node" runbook, as testdata/runbook/ keeps it (testdata/README.md). */
export const RUNBOOK = readFileSync(`${TESTDATA}runbook/provision-a-node.txt`, 'utf8');

export interface Row {
  /** The row's line number in the runbook's text. */
  at: number;
  symptom: string;
  cause: string;
  action: string;
}

/** The rows of "If something goes wrong": tab-separated cells, after the `Symptom Cause Action` heading. */
export function failureTable(text = RUNBOOK): Row[] {
  const lines = text.split('\n');
  const head = lines.findIndex((l) => l.trim() === 'Symptom\tCause\tAction');
  if (head < 0) throw new Error('the runbook has no failure table (a Symptom, Cause, Action heading)');
  const rows: Row[] = [];
  for (let i = head + 1; i < lines.length && lines[i]!.includes('\t'); i++) {
    const [symptom = '', cause = '', action = ''] = lines[i]!.split('\t');
    rows.push({ at: i + 1, symptom, cause, action });
  }
  return rows;
}

/** A cell's code spans: what the runbook quotes. */
export const codeSpans = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

/** Each `Result:` paragraph, with its line number. */
export function results(text = RUNBOOK): Array<{ at: number; text: string }> {
  return text.split('\n').flatMap((l, i) => (l.startsWith('Result: ') ? [{ at: i + 1, text: l.slice('Result: '.length) }] : []));
}

/**
 * A quoted phrase as a pattern over printed lines: its `<placeholder>`s and its one-capital
 * numbers (`port N`) stand for any value; the rest is verbatim.
 */
export function phrasePattern(phrase: string): RegExp {
  const parts = phrase.split(/(<[^<>]+>|\b[A-Z]\b)/);
  const body = parts.map((p, i) => (i % 2 === 1 ? '.+?' : p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(body);
}

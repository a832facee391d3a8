import { printable } from '../../shared/text/terminal.js';
import type { DeviceStatusRow } from './device-status.js';

const HEADINGS = ['HOST', 'STATUS', 'VERDICT', 'PORT (SEEN/DECLARED)', 'DESIRED', 'RUN', 'LAST JOURNAL LINE'];
/** A journal line longer than this is cut in the table (--json holds it whole). */
const JOURNAL_WIDTH = 100;

const or = (v: string | null) => v ?? '-';

function port(p: DeviceStatusRow['port']): string {
  if (p.seen === null) return `none/${or(p.declared)}`;
  return p.matches ? p.seen : `${p.seen}/${or(p.declared)} (differs)`;
}

function run(r: DeviceStatusRow): string {
  if (!r.run) return r.lastRun ? `${r.lastRun} (not in Tinkerbell's API)` : '-';
  const at = r.run.action ? ` at ${r.run.action}${r.run.actionSeconds !== null ? ` for ${r.run.actionSeconds} s` : ''}` : '';
  return `${r.run.name} ${r.run.state}${at}`;
}

function journal(j: DeviceStatusRow['lastJournal']): string {
  if (!j) return '-';
  const line = `${j.at} ${j.kind}: ${j.message}`;
  return line.length > JOURNAL_WIDTH ? `${line.slice(0, JOURNAL_WIDTH - 1)}…` : line;
}

/** The cells of a row, as the table shows them: what the inventory holds is escaped, as every line fleet prints. */
export function statusCells(r: DeviceStatusRow): string[] {
  const verdict = r.verdict === 'attested' && r.attestedAt ? `attested ${r.attestedAt}` : or(r.verdict);
  return [r.host, r.status, verdict, port(r.port), or(r.desiredAction), run(r), journal(r.lastJournal)].map((c) => printable(c));
}

/** The table: a heading, then one line per device, each column as wide as its widest cell. */
export function statusTable(rows: readonly DeviceStatusRow[]): string[] {
  const cells = [HEADINGS, ...rows.map(statusCells)];
  const widths = HEADINGS.map((_, i) => Math.max(...cells.map((c) => c[i]!.length)));
  return cells.map((c) => c.map((cell, i) => (i === c.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '));
}

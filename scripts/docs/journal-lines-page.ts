import { ATTEST_LINES, BOOT_WHY } from '../../verifier/attest/lines.js';
import { INSTALL_LINES } from '../../verifier/install/lines.js';
import { INVENTORY_LINES } from '../../verifier/inventory/lines.js';
import type { LineMaker } from '../../verifier/journal-line.js';
import { AFTER_FAILURE, HOW, LINES, readHookosJournal } from '../../verifier/reconcile/lines.js';
import { type Said, template } from '../../shared/text/line-def.js';
import { cell, type DocPage } from './page.js';

const code = (s: string) => `\`${cell(s)}\``;

/** One registry's lines as a table, each line with its arguments' names in their place. */
function table(lines: Record<string, LineMaker<string[]>>): string[] {
  const rows = Object.values(lines).map(({ def }) => `| \`${def.kind}\` | ${cell(def.when)} | ${code(template(def))} |`);
  return ['| kind | when | line |', '|---|---|---|', ...rows];
}

/** docs/reference/journal-lines.md: every line fleetd journals on a device, by the part that says it. */
export const journalLinesPage: DocPage = {
  path: 'docs/reference/journal-lines.md',
  render() {
    return [
      '<!-- Generated from verifier/*/lines.ts by npm run docs: edit the lines, not this page. -->',
      "# fleetd's journal lines",
      '',
      "Every line fleetd writes to a device's journal (NetBox's journal, or the embedded inventory's), each",
      'defined once where it is said (`verifier/journal-line.ts`).',
      '',
      '## Attestation (`verifier/attest/lines.ts`)',
      '',
      ...table(ATTEST_LINES as unknown as Record<string, LineMaker<string[]>>),
      '',
      `\`<why>\` of a boot the measured-boot policy refuses: ${(Object.values(BOOT_WHY) as Said<string[]>[])
        .map((w) => `${code(template(w.def))} (${w.def.when})`)
        .join('; ')}.`,
      '',
      '## The reconciler (`verifier/reconcile/lines.ts`)',
      '',
      'Each once per event: what was said is kept as a note, so a later pass does not say it again.',
      '',
      ...table(LINES as unknown as Record<string, LineMaker<string[]>>),
      '',
      `\`<how>\`: ${Object.entries(HOW)
        .map(([boot, text]) => `${code(text)} (${boot})`)
        .join(', ')}.`,
      `\`<where to read>\`: ${code(readHookosJournal('<address>'))}, when the device declares an address.`,
      `\`<what now>\`: ${code(AFTER_FAILURE.provision)}; a retirement's: ${code(AFTER_FAILURE.retire)}; a run whose boot fleetd refused its code: ${code(AFTER_FAILURE.codeRefused)}.`,
      '',
      '## Config and seed fetches (`verifier/install/lines.ts`)',
      '',
      ...table(INSTALL_LINES as unknown as Record<string, LineMaker<string[]>>),
      '',
      '## The inventory (`verifier/inventory/lines.ts`)',
      '',
      ...table(INVENTORY_LINES as unknown as Record<string, LineMaker<string[]>>),
      '',
    ].join('\n');
  },
};

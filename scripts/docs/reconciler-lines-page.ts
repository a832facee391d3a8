import { AFTER_FAILURE, HOW, LINES, readHookosJournal } from '../../verifier/reconcile/lines.js';
import { cell, type DocPage } from './page.js';

/** docs/reference/reconciler-lines.md: every line the reconciler journals, its arguments in their place. */
export const reconcilerLinesPage: DocPage = {
  path: 'docs/reference/reconciler-lines.md',
  render() {
    const rows = Object.values(LINES).map(({ def }) => {
      const shown = (def.text as (...a: string[]) => string)(...def.args.map((a) => `<${a}>`));
      return `| \`${def.kind}\` | ${cell(def.when)} | \`${cell(shown)}\` |`;
    });
    const code = (s: string) => `\`${cell(s)}\``;
    return [
      '<!-- Generated from verifier/reconcile/lines.ts by npm run docs: edit the lines, not this page. -->',
      "# The reconciler's journal lines",
      '',
      "Each is written to the device's journal (NetBox's journal, or the embedded inventory's) once per",
      'event: what was said is kept as a note, so a later pass does not say it again.',
      '',
      '| kind | when | line |',
      '|---|---|---|',
      ...rows,
      '',
      `\`<how>\`: ${Object.entries(HOW)
        .map(([boot, text]) => `${code(text)} (${boot})`)
        .join(', ')}.`,
      `\`<where to read>\`: ${code(readHookosJournal('<address>'))}, when the device declares an address.`,
      `\`<what now>\`: ${code(AFTER_FAILURE.provision)}; a retirement's: ${code(AFTER_FAILURE.retire)}.`,
      '',
    ].join('\n');
  },
};

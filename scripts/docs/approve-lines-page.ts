import { type Said, template } from '../../shared/text/line-def.js';
import { APPROVE_LINES } from '../../verifier/approve-lines.js';
import { cell, type DocPage } from './page.js';

/** docs/reference/approve-lines.md: every line fleet attest approve prints, from verifier/approve-lines.ts. */
export const approveLinesPage: DocPage = {
  path: 'docs/reference/approve-lines.md',
  render() {
    const rows = (Object.values(APPROVE_LINES) as Said<string[]>[]).map((l) => `| ${cell(l.def.when)} | \`${cell(template(l.def))}\` |`);
    return [
      '<!-- Generated from verifier/approve-lines.ts by npm run docs: edit the lines, not this page. -->',
      "# fleet attest approve's lines",
      '',
      'What `fleet attest approve SERIAL` prints for a waiting claim ([operations](../operations.md#the-nodes-file-embedded)),',
      'in the order it prints them: the claim, each EK with what its certificate says, the platform',
      'certificate when one is given, then the closing lines and the binding lines to add. What the',
      'claimant sent is shown escaped. The lines approve nothing: only the hash comparison does.',
      '',
      '| when | line |',
      '|---|---|',
      ...rows,
      '',
    ].join('\n');
  },
};

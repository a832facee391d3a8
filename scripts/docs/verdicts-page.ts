import { POLICY_VERDICTS, PROTOCOL_VERDICTS, RETRYABLE_VERDICTS, VERDICT_MEANINGS, type Verdict } from '../../shared/wire/verdicts.js';
import { cell, type DocPage } from './page.js';

function rows(verdicts: readonly Verdict[]): string[] {
  return verdicts.map((v) => `| \`${v}\` | ${cell(VERDICT_MEANINGS[v])}${RETRYABLE_VERDICTS.has(v) ? ' (the agent tries again)' : ''} |`);
}

/** docs/reference/verdicts.md: every verdict and what it means, from shared/wire/verdicts.ts. */
export const verdictsPage: DocPage = {
  path: 'docs/reference/verdicts.md',
  render() {
    return [
      '<!-- Generated from shared/wire/verdicts.ts by npm run docs: edit the registry, not this page. -->',
      '# Verdicts',
      '',
      'What fleetd answers at the end of an attestation ([protocol](../protocol.md)); what each verdict',
      'writes to the device is in [protocol](../protocol.md#two-round-trips) and',
      '[admission](../operations.md#admission). Verdicts are stable strings: on the console as',
      '`attest: FAILED <verdict>: <reason>`, in the `attest.verdict` [audit line](audit.md), in the',
      'inventory.',
      '',
      "## The inventory's answer",
      '',
      'Given once the TPM has proven its EKs, by comparing them with the entry of the serial it claims.',
      '',
      '| verdict | meaning |',
      '|---|---|',
      ...rows(POLICY_VERDICTS),
      '',
      '## Refusals of the evidence',
      '',
      'Given before any entry is read: the evidence itself does not hold.',
      '',
      '| verdict | meaning |',
      '|---|---|',
      ...rows(PROTOCOL_VERDICTS),
      '',
    ].join('\n');
  },
};

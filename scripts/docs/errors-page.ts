import { ERROR_CODES, type ErrorEntry } from '../../shared/error-codes.js';
import { cell, type DocPage } from './page.js';

/** docs/reference/errors.md: the registry as a table, by code. */
export const errorsPage: DocPage = {
  path: 'docs/reference/errors.md',
  render() {
    const entries: Array<[string, ErrorEntry]> = Object.entries(ERROR_CODES);
    // Code-unit order, not the locale's: the same bytes on every machine.
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const rows = entries.map(([code, e]) => `| \`${code}\` | ${e.http ?? ''} | ${e.raisedBy.join(', ')} | ${cell(e.meaning)} |`);
    return [
      '<!-- Generated from shared/error-codes.ts by npm run docs: edit the registry, not this page. -->',
      '# Error codes',
      '',
      'Every error fleet raises on purpose carries one of these codes: at the end of its line',
      '(`fleet: <message> [usage]`, `attest: agent error: <message> [tpm-unavailable]`), and as `error`',
      "in fleetd's HTTP error answers, with the status below. fastify's own refusals of a request (a",
      "body too large, another content type) keep fastify's `FST_ERR_*` code and status. A refused",
      'attestation is answered with a [verdict](verdicts.md), not an error code.',
      '',
      '| code | HTTP | raised by | meaning |',
      '|---|---|---|---|',
      ...rows,
      '',
    ].join('\n');
  },
};

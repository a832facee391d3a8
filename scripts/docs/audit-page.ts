import { AUDIT_EVENTS } from '../../verifier/audit-events.js';
import { cell, type DocPage } from './page.js';

/** docs/reference/audit.md: every audit event and its fields, from verifier/audit-events.ts. */
export const auditPage: DocPage = {
  path: 'docs/reference/audit.md',
  render() {
    const sections = Object.entries(AUDIT_EVENTS).flatMap(([event, def]) => {
      const fields = Object.entries(def.fields as Readonly<Record<string, string>>);
      return [
        `## \`${event}\``,
        '',
        `Written ${def.when}.`,
        '',
        ...(fields.length
          ? ['| field | holds |', '|---|---|', ...fields.map(([name, holds]) => `| \`${name}\` | ${cell(holds)} |`)]
          : ['No fields but the event and its time.']),
        '',
      ];
    });
    return [
      '<!-- Generated from verifier/audit-events.ts by npm run docs: edit the registry, not this page. -->',
      '# Audit events',
      '',
      'fleetd and `fleet syslog` write one JSON object per line on stdout (journald keeps them under the',
      'unit: `journalctl -u fleetd -o cat | grep \'"audit":"attest.verdict"\'`). Each has `audit`, the',
      "event's name, and `time`, when it was written, then the fields below; a field with nothing to say",
      'is left out. No event carries a secret: install codes, tokens and keys have no field.',
      '',
      ...sections,
    ].join('\n');
  },
};

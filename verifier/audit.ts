/**
 * Audit lines: one JSON object per line on stdout (journald keeps them under the unit), with a
 * stable `audit` event name (`attest.verdict`, `attest.install`) and the facts an operator greps
 * for. Never a secret: install codes and tokens are not fields of any event.
 */
export type AuditSink = (line: string) => void;

export type Audit = (event: string, fields: Record<string, unknown>) => void;

export function createAudit(sink: AuditSink = (l) => process.stdout.write(`${l}\n`), now: () => Date = () => new Date()): Audit {
  return (event, fields) => sink(JSON.stringify({ audit: event, time: now().toISOString(), ...fields }));
}

import type { AuditEvent, AuditFields } from './audit-events.js';
import { recordPrinted } from '../shared/text/printed-record.js';

/**
 * Audit lines: one JSON object per line on stdout (journald keeps them under the unit), with a
 * stable `audit` event name and the facts an operator greps for, as audit-events.ts defines them.
 */
export type AuditSink = (line: string) => void;

export type Audit = <E extends AuditEvent>(event: E, fields: AuditFields<E>) => void;

export function createAudit(sink: AuditSink = (l) => process.stdout.write(`${l}\n`), now: () => Date = () => new Date()): Audit {
  return (event, fields) => {
    const line = JSON.stringify({ audit: event, time: now().toISOString(), ...fields });
    recordPrinted(line);
    sink(line);
  };
}

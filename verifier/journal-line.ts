/**
 * A line fleetd journals on a device, defined once where it is said (reconcile/lines.ts,
 * attest/lines.ts, install/lines.ts): its kind, when it is said, and its words as a typed
 * constructor. docs/reference/journal-lines.md is rendered from the definitions (npm run docs),
 * each with its arguments' names in their place. Code never reads a line back.
 */
import type { LineDef as Said } from '../shared/text/line-def.js';
import type { JournalKind } from './inventory/device.js';
import { recordPrinted } from '../shared/text/printed-record.js';

export interface JournalLine {
  kind: JournalKind;
  message: string;
}

export interface LineDef<A extends string[]> extends Said<A> {
  kind: JournalKind;
}

export type LineMaker<A extends string[]> = ((...a: A) => JournalLine) & { def: LineDef<A> };

export const line = <A extends string[]>(d: LineDef<A>): LineMaker<A> =>
  Object.assign(
    (...a: A): JournalLine => {
      const message = d.text(...a);
      recordPrinted(message);
      return { kind: d.kind, message };
    },
    { def: d },
  );

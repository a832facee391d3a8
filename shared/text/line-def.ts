/**
 * A line a part of fleet prints or journals, defined once where it is said: when it is said, its
 * arguments' names, and its words as a typed function. The reference pages under docs/reference/
 * are rendered from these definitions (npm run docs), each with its arguments' names in their
 * place; tests build the lines they expect from the same definitions. Code never reads a line back.
 */
import { recordPrinted } from './printed-record.js';

export interface LineDef<A extends string[]> {
  /** When it is said, for the reference page. */
  when: string;
  /** Its arguments' names, in order, as the reference page shows them. */
  args: { [K in keyof A]: string };
  text: (...a: A) => string;
}

/** A line's text with each argument's name in its place (`<name>`): how the reference shows it. */
export const template = <A extends string[]>(d: LineDef<A>): string => (d.text as (...a: string[]) => string)(...d.args.map((a) => `<${a}>`));

export type Said<A extends string[]> = ((...a: A) => string) & { def: LineDef<A> };

/** A printed line's definition, callable for its text. */
export const said = <A extends string[]>(d: LineDef<A>): Said<A> =>
  Object.assign(
    (...a: A): string => {
      const text = d.text(...a);
      recordPrinted(text);
      return text;
    },
    { def: d },
  );

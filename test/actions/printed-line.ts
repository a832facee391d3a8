import type { ActionName } from '../../images/tink-reprovision-tools/actions.js';
import { printed } from '../../images/tink-reprovision-tools/lines/printed.js';
import { said, type Said } from '../../shared/text/line-def.js';

/** A line's definition as its action prints it, its word first: for the patterns of test/line-pattern.ts. */
export const asPrinted = <A extends string[]>(action: ActionName, line: Said<A>): Said<A> =>
  said({ ...line.def, text: (...a: A) => printed(action, line.def.text(...a)) });

import type { ActionName } from '../../images/tink-reprovision-tools/actions.js';
import { printed } from '../../images/tink-reprovision-tools/lines/printed.js';
import type { Said } from '../../shared/text/line-def.js';

const literally = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Private-use characters, which no line holds and JSON.stringify leaves as they are. */
const MARK = /\uE000(\d+)\uE001/;

/**
 * The whole printed line of a definition, as a pattern, where some arguments are not known before
 * the run (an engine's message, a boot entry's number): each RegExp argument matches in its place,
 * everything else literally.
 */
export function linePattern<A extends string[]>(action: ActionName, line: Said<A>, ...args: { [K in keyof A]: string | RegExp }): RegExp {
  const marked = line(...(args.map((_, i) => `\uE000${i}\uE001`) as A));
  const parts = printed(action, marked).split(MARK);
  const source = parts.map((p, i) => {
    if (i % 2 === 0) return literally(p);
    const arg = args[Number(p)]!;
    return typeof arg === 'string' ? literally(arg) : `(${arg.source})`;
  });
  return new RegExp(`^${source.join('')}$`);
}

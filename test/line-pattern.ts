import type { Said } from '../shared/text/line-def.js';

const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A defined line as a pattern, for a line whose arguments a test cannot know exactly: each
 * argument given as a string is said as is, each given as a RegExp matches in its place.
 */
export function within<A extends string[]>(line: Said<A>, ...args: { [K in keyof A]: string | RegExp }): RegExp {
  const patterns: string[] = [];
  const said = (line as unknown as (...a: string[]) => string)(
    ...args.map((a) => {
      if (typeof a === 'string') return a;
      patterns.push(a.source);
      return `\u0000${patterns.length - 1}\u0000`;
    }),
  );
  return new RegExp(literal(said).replace(/\u0000(\d+)\u0000/g, (_, i: string) => `(?:${patterns[Number(i)]})`));
}

/** The same, matching the whole line. */
export function matching<A extends string[]>(line: Said<A>, ...args: { [K in keyof A]: string | RegExp }): RegExp {
  return new RegExp(`^${within(line, ...args).source}$`);
}

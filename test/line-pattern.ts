import type { Said } from '../shared/text/line-def.js';

const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A defined line as a pattern, for a line whose arguments a test cannot know exactly: each
 * argument given as a string is said as is, each given as a RegExp matches in its place (its
 * flags, such as `i`, then hold for the whole line).
 */
export function within<A extends string[]>(line: Said<A>, ...args: { [K in keyof A]: string | RegExp }): RegExp {
  const patterns: string[] = [];
  const flags = new Set<string>();
  const said = (line as unknown as (...a: string[]) => string)(
    ...args.map((a) => {
      if (typeof a === 'string') return a;
      patterns.push(a.source);
      for (const f of a.flags) flags.add(f);
      return `\u0000${patterns.length - 1}\u0000`;
    }),
  );
  return new RegExp(
    literal(said).replace(/\u0000(\d+)\u0000/g, (_, i: string) => `(?:${patterns[Number(i)]})`),
    [...flags].join(''),
  );
}

/** The same, matching the whole line. */
export function matching<A extends string[]>(line: Said<A>, ...args: { [K in keyof A]: string | RegExp }): RegExp {
  const pattern = within(line, ...args);
  return new RegExp(`^${pattern.source}$`, pattern.flags);
}

/** The same, matching a line that begins with it (a serial console may add to a line's end). */
export function startingWith<A extends string[]>(line: Said<A>, ...args: { [K in keyof A]: string | RegExp }): RegExp {
  const pattern = within(line, ...args);
  return new RegExp(`^${pattern.source}`, pattern.flags);
}

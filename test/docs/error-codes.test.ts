import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../shared/error-codes.js';
import { PROTOCOL_VERDICTS } from '../../shared/wire/verdicts.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const REGISTRY = 'shared/error-codes.ts';
const SOURCE_DIRS = ['shared', 'verifier', 'agent', 'cli', 'images', 'hookos', 'scripts'];

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? (e.name === 'node_modules' ? [] : tsFiles(join(dir, e.name))) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const sources = new Map(SOURCE_DIRS.flatMap((d) => tsFiles(join(ROOT, d))).map((f) => [relative(ROOT, f), readFileSync(f, 'utf8')]));
const text = [...sources]
  .filter(([path]) => path !== REGISTRY)
  .map(([, t]) => t)
  .join('\n');

const matches = (re: RegExp): string[] => [...text.matchAll(re)].map((m) => m[1]!);

/** FleetError and every class that extends it, however indirectly. */
function errorClasses(): Set<string> {
  const classes = new Set(['FleetError', 'ParseError']);
  const extensions = [...text.matchAll(/class (\w+) extends (\w+)/g)].map((m) => [m[1]!, m[2]!] as const);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [child, parent] of extensions) {
      if (classes.has(parent) && !classes.has(child)) {
        classes.add(child);
        grew = true;
      }
    }
  }
  return classes;
}

/** The codes the sources raise or compare against, as their text spells them: literals, and the constants that name codes. */
function usedCodes(): Set<string> {
  const raise = `new (?:${[...errorClasses()].join('|')})\\(\\s*`;
  const reader = 'new ByteReader\\([^,]+,\\s*';
  const check = 'checkValue\\([^,]+,[^,]+,\\s*';
  const compare = '\\.code\\s*[!=]==\\s*';
  // A subclass that fixes its code passes it to super(); fleetd's error answers go through answerError().
  const positions = [raise, 'super\\(\\s*', reader, check, compare, 'answerError\\((?:[^,()]|\\([^)]*\\))+,\\s*'];
  const literal = "'([a-z][a-z0-9-]*)'";
  const constant = '([A-Z][A-Z0-9_]*)\\b';
  const codes = positions.flatMap((p) => matches(new RegExp(p + literal, 'g')));
  for (const name of new Set(positions.flatMap((p) => matches(new RegExp(p + constant, 'g'))))) {
    codes.push(...matches(new RegExp(`const ${name} = ${literal}`, 'g')));
  }
  codes.push(...matches(new RegExp(`${literal} satisfies \\w*Code\\b`, 'g')));
  // Name → code maps (NETBOX_ERROR_CODES, ...): their values.
  for (const body of matches(/= (\{[^}]*\}) as const satisfies Record<string, \w*Code>/g)) codes.push(...[...body.matchAll(/: '([^']+)'/g)].map((m) => m[1]!));
  return new Set(codes);
}

describe('the error code registry', () => {
  const used = usedCodes();

  it('finds the codes the sources use', () => {
    expect(used.size).toBeGreaterThan(Object.keys(ERROR_CODES).length / 2);
  });

  it('holds every code the sources raise (or a protocol verdict a refusal carries)', () => {
    const known = new Set<string>([...Object.keys(ERROR_CODES), ...PROTOCOL_VERDICTS]);
    expect([...used].filter((c) => !known.has(c))).toEqual([]);
  });

  it('holds no code that no source uses', () => {
    expect(Object.keys(ERROR_CODES).filter((c) => !text.includes(`'${c}'`))).toEqual([]);
  });
});

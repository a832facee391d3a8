import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sources(p) : name.endsWith('.ts') ? [p] : [];
  });
}

describe("fleetd's journal lines", () => {
  it('are said only through their definitions: no journal write names a kind or spells a line of its own', () => {
    const inline = sources(join(REPO, 'verifier'))
      .concat(sources(join(REPO, 'cli')))
      .flatMap((file) => {
        const text = readFileSync(file, 'utf8');
        // A write with a literal kind, or a journal step built with a literal message.
        const hits = [...text.matchAll(/\.journal\(\s*[^,()]+,\s*'(?:info|success|warning|danger)'|op: 'journal',[^}]*message: `/g)];
        return hits.map((h) => `${relative(REPO, file)}: ${h[0].replace(/\s+/g, ' ')}`);
      });
    expect(inline).toEqual([]);
  });
});

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { actionLinesPage } from '../../scripts/docs/action-lines-page.js';
import { template, type Said } from '../../shared/text/line-def.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const TOOLS = join(REPO, 'images/tink-reprovision-tools');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return p === join(TOOLS, 'lines') ? [] : sources(p);
    return name.endsWith('.ts') ? [p] : [];
  });
}

/** A line spelled where it is printed or thrown: a string or template literal handed straight to say, a Refusal, an Advised's advice or an Error. */
const INLINE = /\b(?:say\(|new Refusal\(|new Error\(|new Advised\([^,()]+,)\s*['"`]/g;

/** Every definition a module of lines/ exports, in a registry of its own. */
async function definitions(): Promise<Array<[string, Said<string[]>]>> {
  const modules = readdirSync(join(TOOLS, 'lines')).filter((f) => f.endsWith('.ts'));
  const found: Array<[string, Said<string[]>]> = [];
  for (const m of modules) {
    for (const [name, value] of Object.entries(await import(join(TOOLS, 'lines', m)))) {
      if (typeof value !== 'object' || value === null) continue;
      for (const [key, d] of Object.entries(value)) if (typeof d === 'function' && 'def' in d) found.push([`${m} ${name}.${key}`, d as Said<string[]>]);
    }
  }
  return found;
}

describe("the Template actions' lines", () => {
  it('are said only through their definitions in lines/: no action source spells a line of its own', () => {
    const inline = sources(TOOLS).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(INLINE)].map((h) => `${relative(REPO, file)}: ${h[0].replace(/\s+/g, ' ')}`),
    );
    expect(inline).toEqual([]);
  });

  it('are each on the generated page, with their arguments named', async () => {
    const page = actionLinesPage.render();
    const defs = await definitions();
    expect(defs.length).toBeGreaterThan(60);
    expect(defs.filter(([, d]) => !page.includes(template(d.def).replaceAll('|', '\\|'))).map(([name]) => name)).toEqual([]);
  });

  it('finds a line spelled inline (the guard itself can fail)', () => {
    const samples = ["say('synced the disks')", 'throw new Refusal(`no install code`)', "new Advised(err, 'set desired_action')", 'new Error(`sync failed`)'];
    expect(samples.filter((s) => s.match(INLINE))).toEqual(samples);
    expect('say(REBOOT_LINES.synced())'.match(INLINE)).toBeNull();
  });
});

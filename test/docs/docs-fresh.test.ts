import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PAGES } from '../../scripts/docs/pages.js';

describe.each(PAGES.map((p) => [p.path, p] as const))('the generated page %s', (path, page) => {
  it('is what npm run docs writes', () => {
    let written: string | null;
    try {
      written = readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
    } catch {
      written = null;
    }
    expect(written, `${path} is stale: run npm run docs`).toBe(page.render());
  });
});

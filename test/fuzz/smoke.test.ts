/**
 * The fuzzer itself, briefly: every target runs a couple of thousand inputs from its seeds and
 * kept corpus through the real engine (worker, coverage, oracle), so the harness cannot rot.
 * The long runs are `npm run fuzz`, outside CI. Nothing is written to the kept corpus.
 */
import { describe, expect, it } from 'vitest';
import { fuzz } from '../../fuzz/run.js';
import { TARGETS } from '../../fuzz/targets/index.js';

describe('npm run fuzz, briefly', () => {
  it('runs every target, reaches code, and finds nothing', async () => {
    const results = await fuzz({ runs: 1500, seed: 1, keep: false });
    expect(results.map((r) => r.target)).toEqual(TARGETS);
    for (const r of results) {
      expect(r.execs, r.target).toBeGreaterThanOrEqual(1500);
      expect(r.ownBlocks, r.target).toBeGreaterThan(50);
      expect(r.findings, r.target).toEqual([]);
    }
  }, 240_000);
});

import { describe, expect, it } from 'vitest';
import { Controller } from '../../verifier/reconcile/controller.js';
import type { PassResult, Reconciler } from '../../verifier/reconcile/reconciler.js';

/** A reconciler whose passes the test finishes by hand, counting how many ran at once. */
function scripted(results: PassResult[]) {
  let running = 0;
  const stats = { passes: 0, maxConcurrent: 0 };
  const waiting: Array<() => void> = [];
  const reconciler = {
    async pass(): Promise<PassResult> {
      running++;
      stats.passes++;
      stats.maxConcurrent = Math.max(stats.maxConcurrent, running);
      await new Promise<void>((r) => waiting.push(r));
      running--;
      return results.shift() ?? { writes: 0, planned: 0, warnings: [] };
    },
  } as unknown as Reconciler;
  const finishOne = async () => {
    while (waiting.length === 0) await new Promise((r) => setImmediate(r));
    waiting.shift()!();
    await new Promise((r) => setImmediate(r));
  };
  return { reconciler, stats, finishOne };
}

describe('the controller', () => {
  it('runs one pass at a time; requests during a pass run exactly one more pass after it', async () => {
    const s = scripted([]);
    const logs: Array<Record<string, unknown>> = [];
    const c = new Controller(s.reconciler, { intervalMs: 60_000, audit: (event, fields) => logs.push({ event, ...fields }) });
    const first = c.trigger();
    c.trigger();
    c.trigger();
    await s.finishOne();
    await s.finishOne();
    await first;
    expect(s.stats).toEqual({ passes: 2, maxConcurrent: 1 });
    await c.stop();
  });

  it('logs a failure once until a pass succeeds, then says it recovered', async () => {
    const err = { writes: 0, planned: 0, warnings: [], error: 'read: list hardware: connect ECONNREFUSED' };
    const s = scripted([err, err, { writes: 3, planned: 3, warnings: [] }]);
    const logs: Array<Record<string, unknown>> = [];
    const c = new Controller(s.reconciler, { intervalMs: 60_000, audit: (event, fields) => logs.push({ event, ...fields }) });
    for (let i = 0; i < 3; i++) {
      const p = c.trigger();
      await s.finishOne();
      await p;
    }
    expect(logs).toEqual([
      { event: 'reconcile.failed', error: err.error, writes: 0 },
      { event: 'reconcile.recovered' },
      { event: 'reconcile.pass', writes: 3, warnings: undefined },
    ]);
    await c.stop();
  });

  it('only the lease holder passes; a stop releases the lease', async () => {
    const s = scripted([]);
    let released = 0;
    const c = new Controller(s.reconciler, {
      intervalMs: 60_000,
      audit: () => undefined,
      lease: { hold: async () => false, release: async () => void released++ } as never,
    });
    await c.trigger();
    expect(s.stats.passes).toBe(0);
    await c.stop();
    expect(released).toBe(1);
  });
});

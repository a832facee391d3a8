/**
 * fleetd killed at every write of the reconcile pass that starts a run: after each of its writes
 * to Tinkerbell's API and to its own state, nothing more of that process happens (every later
 * call fails, reads too), and a fresh reconciler over the same API server and SQLite (the
 * restarted fleetd) passes again. Whatever the kill point, the end is the run started exactly
 * once: one Workflow, one Job, allowPXE on, desired_action cleared, last_run naming the
 * Workflow, the start journaled (twice only when the kill falls between the line and the note that
 * it was said: at least once), and the next passes write nothing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Inventory } from '../../verifier/inventory/inventory.js';
import type { Kube } from '../../verifier/kube/client.js';
import { Reconciler } from '../../verifier/reconcile/reconciler.js';
import type { LocalStore } from '../../verifier/state/local-store.js';
import { mortal } from '../crash/mortal.js';
import { CrdServer } from '../kube/crd-server.js';
import { harness, type Harness } from './harness.js';

let server: CrdServer;
beforeAll(async () => {
  server = await CrdServer.start();
}, 600_000);
afterAll(() => server?.stop());
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const reconcilerOf = (x: Harness, kube: Kube, inventory: Inventory, store: LocalStore) =>
  new Reconciler({ kube, inventory, store, metrics: x.metrics, now: () => new Date(x.now.t), classInputs: async () => null }, x.config);

describe('fleetd killed during the pass that starts a run', () => {
  it('at every write, the restarted fleetd ends with the run started exactly once', async () => {
    const ends: string[] = [];
    for (let k = 0; ; k++) {
      h = await harness(server);
      await h.attested('node-1', 3_600_000);
      await h.reconciler.pass();
      await h.inventory.setDesiredAction(await h.device(), 'provision');
      const m = mortal(k);
      await reconcilerOf(h, m.wrap(h.kube), m.wrap(h.inventory), m.wrap(h.store))
        .pass()
        .catch(() => undefined);
      const killed = m.died();
      // The restart: new process, same API server and database.
      const again = reconcilerOf(h, h.kube, h.inventory, h.store);
      for (let i = 0; i < 3; i++) expect((await again.pass()).error, `kill after ${k} writes, pass ${i}`).toBeUndefined();
      const workflows = (await h.objects('tinkerbell.org', 'workflows')).map((w) => w.metadata.name);
      const jobs = (await h.objects('bmc.tinkerbell.org', 'jobs')).map((j) => j.metadata.name);
      const d = await h.device();
      const where = `killed after ${k} writes (${m.done.join(', ')}), before ${m.refused() ?? 'none'}`;
      expect(workflows, where).toHaveLength(1);
      expect(jobs, where).toEqual(workflows);
      expect(d.desiredAction, where).toBeUndefined();
      expect(d.lastRun, where).toBe(workflows[0]);
      // At least once: a kill between the line and the note that it was said makes the restart say it again.
      const betweenLineAndNote = m.refused() === 'note' && m.done.at(-1) === 'journal';
      expect(
        (await h.journal()).filter((l) => l.includes('started Workflow')),
        where,
      ).toHaveLength(betweenLineAndNote ? 2 : 1);
      const hw = (await h.objects('tinkerbell.org', 'hardware'))[0]!;
      expect(JSON.stringify(hw.spec), where).toContain('"allowPXE":true');
      const before = h.api.requests.length;
      await again.pass();
      expect(h.writes(before), where).toEqual([]);
      ends.push(killed ? `before ${m.refused()}` : 'finished');
      await h.close();
      h = undefined;
      if (!killed) break;
    }
    // Every write of the pass was a kill point, in the pass's order.
    expect(ends).toEqual([
      'before patch Hardware',
      'before create Workflow',
      'before create Job',
      'before journal',
      'before note',
      'before recordRun',
      'before forgetNotes',
      'finished',
    ]);
  }, 300_000);
});

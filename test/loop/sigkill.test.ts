import { describe, expect, it } from 'vitest';
import { ATTEST_LINES } from '../../agent/attest/lines.js';
import { isRoot } from '../docker/lab.js';
import type { Lab, LabOptions } from './lab.js';
import { fetchConfig, labPerTest, PASSED_WITH_CODE } from './per-file.js';

/**
 * `fleet serve` SIGKILLed, as a crash or the OOM killer ends it, and started again over the same
 * SQLite, nodes file and API server: in the pass that starts a run, as soon as its first object
 * shows, and in an admitted attestation, as soon as its verdict is audited. Where the kill lands
 * inside each is up to the scheduler (test/reconcile/crash-points.test.ts and
 * test/swtpm/attest-crash-points.test.ts kill at every write in turn); what must hold is the same
 * at every point: the run started once, and the boot's code the one the restarted fleetd issued.
 */
const startLab = labPerTest();

/** A killed fleetd's Lease lapses after this; the restart reconciles only then. */
const LEASE_S = 3;

const start = (opts: Omit<LabOptions, 'backend' | 'leaseS'>): Promise<Lab> => startLab({ backend: 'embedded', leaseS: LEASE_S, ...opts });

/** Polls tightly (the kill should land inside what it waits for), without the lab's 100 ms step. */
async function soon(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe.skipIf(!isRoot)('fleet serve SIGKILLed and restarted', () => {
  it('in the pass that starts a run: the restart ends with the run started once, and the power-cycled boot gets its code', async () => {
    const l = await start({ className: 'api-edge', autoProvision: true });
    expect(await l.bootAndAttest()).toEqual([ATTEST_LINES.passed()]);
    await l.setDesiredAction('provision');
    await soon("the pass's first object", async () => (await l.workflows()).length > 0);
    await l.fleetd.kill();
    const atKill = `at the kill: ${(await l.workflows()).length} Workflow(s), ${(await l.jobs()).length} Job(s), desired_action ${(await l.device()).desiredAction ?? 'cleared'}`;

    await l.restart();
    const wf = await l.until('the run started', async () => {
      const [workflows, jobs, device] = await Promise.all([l.workflows(), l.jobs(), l.device()]);
      return workflows.length === 1 && jobs.length === 1 && device.desiredAction === undefined && device.lastRun === workflows[0]!.metadata.name
        ? workflows[0]
        : null;
    });
    // A few passes more write nothing new.
    await new Promise((r) => setTimeout(r, 2500));
    expect(
      (await l.workflows()).map((w) => w.metadata.name),
      atKill,
    ).toEqual([wf.metadata.name]);
    expect(
      (await l.jobs()).map((j) => j.metadata.name),
      atKill,
    ).toEqual([wf.metadata.name]);
    expect(JSON.stringify((await l.hardware())?.spec), atKill).toContain('"allowPXE":true');
    // At least once: a kill between the line and the note that it was said makes the restart say it again.
    const started = (await l.journal()).filter((j) => j.startsWith(`info: node-1: started Workflow ${wf.metadata.name}`));
    expect(started.length, atKill).toBeGreaterThanOrEqual(1);
    expect(started.length, atKill).toBeLessThanOrEqual(2);

    // Rufio's power cycle: the netboot's attestation receives the run's code.
    const job = (await l.jobs())[0]!;
    await l.rufio(job);
    expect(await l.bootAndAttest()).toEqual(expect.arrayContaining(PASSED_WITH_CODE));
    expect(await l.machine.installCode()).not.toBeNull();
  });

  it("in an admitted attestation: the agent's next try gets a code from the restart, and any code the killed one drew unlocks nothing", async () => {
    const l = await start({ autoProvision: true });
    await l.machine.boot();
    const seen = l.fleetd.stdout.length;
    const first = l.machine.attest(l.fleetd.url);
    await soon('the verdict audited', () => l.fleetd.stdout.slice(seen).some((line) => line.includes('"attest.verdict"')));
    await l.fleetd.kill();
    const firstLines = await first;
    const drawn = firstLines.includes(ATTEST_LINES.codeWritten()) ? await l.machine.installCode() : null;
    const atKill = `the killed fleetd's try said: ${firstLines.join(' | ')}`;

    await l.restart();
    expect(await l.machine.attest(l.fleetd.url), atKill).toEqual(expect.arrayContaining(PASSED_WITH_CODE));
    const code = (await l.machine.installCode())!;
    const wf = await l.run();
    // The pass records the run on the device after it creates the Workflow: wait for that write.
    await l.until(`the device's last run ${wf.metadata.name} (${atKill})`, async () => ((await l.device()).lastRun === wf.metadata.name ? true : null));
    expect(await l.workflows(), atKill).toHaveLength(1);
    if (drawn) {
      expect(code).not.toBe(drawn);
      expect(await fetchConfig(l.fleetd.url, drawn), atKill).toBe(404);
    }
    expect(await fetchConfig(l.fleetd.url, code), atKill).toBe(200);
  });
});

/**
 * The runbook's failure row "The Workflow's Rufio job fails to power the machine": a control plane
 * whose AMT does not answer at the node's address. The owner asks for the provision, Rufio's Job
 * fails with Rufio's wording, fleetd journals it once with the runbook's action, and nothing else
 * happens to the machine; the operator powers it on by hand, and that boot's attestation receives
 * the run's install code.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ATTEST_LINES } from '../../agent/attest/lines.js';
import { startingWith } from '../line-pattern.js';
import { RIG_CATALOGUE } from '../swtpm/rig.js';
import { nodeEntry } from './host.js';
import { Lab } from './lab/lab.js';
import { Machine } from './machine.js';
import { e2eRun } from './manifest.js';

const run = e2eRun();
let lab: Lab | undefined;
afterAll(() => lab?.close());

const NODE = 'node-noamt';

describe.skipIf(run.skip !== null)('a Rufio Job that cannot power the machine', () => {
  it("fails with Rufio's words, fleetd says to set AMT's address or power it on by hand, and the boot by hand gets the code", async () => {
    const m = Machine.create(run, 'noamt', run.tpm.a, [{ bus: 'nvme', serial: 'E2E-NVME-NOAMT' }]);
    // bmc_type amt, but no BMC answers at the node's address.
    lab = await Lab.start(run, m, {
      nodes: { [NODE]: nodeEntry(m.serial, 'E2E-NVME-NOAMT', 'controlplane', run.tpm.a) },
      classes: { controlplane: { ...RIG_CATALOGUE.classes.controlplane, installer_image: run.registry.installer } },
    });
    await lab.machine.powerOn();
    const first = lab.machine.boots[0]!;
    await first.running.waitForLine(startingWith(ATTEST_LINES.passed));

    const wf = await lab.provisionAgain(NODE, 60_000);
    const line = `${NODE}: Rufio's Job ${wf.metadata.name} failed to power the machine (task tinkerbell/${wf.metadata.name}-task-0 failed): AMT does not answer at 10.0.1.11. Set AMT's address, or power the machine on by hand`;
    await lab.until('the failed power cycle journaled', NODE, async () => (await lab!.journal(NODE)).includes(line), 60_000);
    expect(lab.rufio.ran).toEqual([{ job: wf.metadata.name, failed: `task tinkerbell/${wf.metadata.name}-task-0 failed` }]);
    const machine = (await lab.objects('bmc.tinkerbell.org', 'machines')).find((x) => x.metadata.name === NODE)!;
    expect(machine.status).toMatchObject({ powerState: 'unknown', conditions: [{ type: 'Contactable', status: 'False' }] });
    // Journaled once, and the machine was left as it was: still in its first HookOS boot.
    await new Promise((r) => setTimeout(r, 3_000));
    expect((await lab.journal(NODE)).filter((l) => l === line)).toHaveLength(1);
    expect(lab.machine.boots).toHaveLength(1);
    expect(lab.machine.power).toBe('on');

    // The runbook's other way: power it on by hand. Its attestation gets the run's code.
    await lab.machine.powerOff();
    await lab.machine.powerOn();
    const second = lab.machine.boots[1]!;
    expect(second.kind).toBe('hookos');
    await second.running.waitForLine(startingWith(ATTEST_LINES.codeWritten));
    await lab.machine.powerOff();
  }, 600_000);
});

/**
 * The runbook's failure of a run whose installer image the registry does not hold: an approved
 * worker attests, fleetd starts its run in that HookOS boot, and Tinkerbell's first action,
 * wipe-disk, refuses before any write (`… cannot be pulled …; nothing wiped`). The Workflow ends
 * FAILED at wipe-disk, fleetd journals it once with the action, its message and where its last
 * lines are, and that query finds them: HookOS's Docker engine sent wipe-disk's output through its
 * syslog driver to fleetd's receiver, from the node's address, into the journal. The disk is byte
 * for byte what it was.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ATTEST_LINES } from '../../agent/attest/lines.js';
import { WIPE_LINES } from '../../images/tink-reprovision-tools/lines/wipe.js';
import { asPrinted } from '../actions/printed-line.js';
import { matching, startingWith } from '../line-pattern.js';
import { RIG_CATALOGUE } from '../swtpm/rig.js';
import { nodeEntry } from './host.js';
import { Lab } from './lab/lab.js';
import { Machine } from './machine.js';
import { e2eRun } from './manifest.js';

const run = e2eRun();
let lab: Lab | undefined;
afterAll(() => lab?.close());

const NODE = 'node-noimage';

describe.skipIf(run.skip !== null)('an installer image the registry does not hold', () => {
  it('wipe-disk refuses before the wipe, the Workflow ends FAILED there, fleetd says where to read, and the disk is untouched', async () => {
    const m = Machine.create(run, 'noimage', run.tpm.a, [{ bus: 'nvme', serial: 'E2E-NVME-NOIMAGE' }]);
    const missing = run.registry.installer.replace(/:[^:/]+$/, ':v9.9.9');
    lab = await Lab.start(run, m, {
      nodes: { [NODE]: nodeEntry(m.serial, 'E2E-NVME-NOIMAGE', 'worker', run.tpm.a) },
      classes: { worker: { ...RIG_CATALOGUE.classes.worker, installer_image: missing } },
      syslog: true,
    });
    const before = m.diskHashes();
    await lab.machine.powerOn();
    const boot = lab.machine.boots[0]!;
    await boot.running.waitForLine(startingWith(ATTEST_LINES.codeWritten));

    const wf = await lab.ended(NODE, (await lab.run(NODE, 'provision', 60_000)).metadata.name, 300_000);
    expect(wf.status?.state).toBe('FAILED');
    expect(m.out(boot.number, 'wipe-disk.state')).toBe('failure\n');
    // A line of the action's output (the m flag: ^ and $ at each line's ends).
    const refusal = matching(asPrinted('wipe-disk', WIPE_LINES.cannotPull), missing, /.*manifest unknown.*/m);
    expect(m.out(boot.number, 'wipe-disk.out')).toMatch(refusal);
    expect(m.out(boot.number, 'install.state')).toBeNull();
    const line = `${NODE}: Workflow ${wf.metadata.name} ended FAILED at wipe-disk (action completed); read journalctl -t hookos HOOKOS_HOST=10.0.1.11 on spore for the action's last lines. Fix the cause, then set desired_action to provision`;
    await lab.until('the failure journaled', NODE, async () => (await lab!.journal(NODE)).includes(line), 30_000);

    // The hint's own query, on the journal fleetd's receiver writes.
    const journald = lab.syslog!.journald;
    const hookos = (address: string) => journald.messages('-t', 'hookos', `HOOKOS_HOST=${address}`);
    const found = await lab.until(
      "wipe-disk's lines under HOOKOS_HOST=10.0.1.11",
      NODE,
      async () => {
        const lines = await hookos('10.0.1.11');
        return lines.some((l) => refusal.test(l)) ? lines : null;
      },
      30_000,
    );
    expect(found).toEqual(m.step(boot.number, 'wipe-disk').lines);
    // Docker's default tag: the container's ID, from the engine's pid.
    for (const e of await journald.entries('-t', 'hookos'))
      expect(e).toMatchObject({
        HOOKOS_HOST: '10.0.1.11',
        HOOKOS_PROGRAM: expect.stringMatching(/^[0-9a-f]{12}$/),
        HOOKOS_PID: expect.stringMatching(/^\d+$/),
      });
    // Not the address QEMU's user network sends from, nor another node's.
    expect(await hookos('127.0.0.1')).toEqual([]);
    expect(await hookos('10.0.1.12')).toEqual([]);
    await lab.machine.powerOff();
    expect(m.diskHashes()).toEqual(before);
  }, 600_000);
});

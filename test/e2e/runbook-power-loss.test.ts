/**
 * Power losses through the lab's own loop, each ending in the state the runbook's table states:
 * - during wipe-disk (both GPT copies zeroed, no record yet): power restored, the run resumes at
 *   wipe-disk, whose new boot attests again, takes a new code and wipes again;
 * - during install: the run resumes at install in the next boot, which refuses (`this run resumed
 *   in a new boot after wipe-disk; nothing installed; …`), and the run is FAILED, the disk as the
 *   lost boot left it;
 * - set desired_action provision: the new run wipes and installs; the power fails as reboot
 *   begins: the firmware boots the disk next-boot named, under the run's code, and the node is
 *   active while its Workflow never hears of the reboot.
 * The wipe record lives on the machine's /worker, which outlives a power loss here, so the
 * refusal comes from the record's boot, not from a missing file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ATTEST_LINES } from '../../agent/attest/lines.js';
import { INSTALL_LINES } from '../../images/tink-reprovision-tools/lines/install.js';
import { printed } from '../../images/tink-reprovision-tools/lines/printed.js';
import { NOTHING, SHARED_LINES } from '../../images/tink-reprovision-tools/lines/shared.js';
import { WIPE_LINES } from '../../images/tink-reprovision-tools/lines/wipe.js';
import { asPrinted } from '../actions/printed-line.js';
import { startingWith, within } from '../line-pattern.js';
import { RIG_CATALOGUE } from '../swtpm/rig.js';
import { nodeEntry } from './host.js';
import { Lab } from './lab/lab.js';
import { Machine } from './machine.js';
import { e2eRun } from './manifest.js';

const run = e2eRun();
let lab: Lab | undefined;
afterAll(() => lab?.close());

const NODE = 'node-power';
const DISK_SERIAL = 'E2E-NVME-POWER';
const DISK = '/dev/nvme0n1';

describe.skipIf(run.skip !== null)('power losses during a run', () => {
  it('during wipe-disk the run resumes and wipes again; during install it resumes and refuses; during reboot the disk boots and the node is active', async () => {
    const m = Machine.create(run, 'power', run.tpm.a, [{ bus: 'nvme', serial: DISK_SERIAL }]);
    lab = await Lab.start(run, m, {
      nodes: { [NODE]: nodeEntry(m.serial, DISK_SERIAL, 'worker', run.tpm.a) },
      classes: { worker: { ...RIG_CATALOGUE.classes.worker, installer_image: run.registry.installer } },
      bmcOf: NODE,
    });
    const status = async () => (await lab!.host.verifier.show(NODE)).record?.status;
    const readWiped = () => JSON.parse(readFileSync(join(m.share, 'worker/fleet/wiped'), 'utf8')) as { bootId: string; disk: string; serial: string };
    const boot = (i: number) => lab!.machine.boots[i]!;
    const workflow = async (name: string) => (await lab!.objects('tinkerbell.org', 'workflows')).find((w) => w.metadata.name === name);

    // A planned worker attests: its run starts in this boot; the power fails in the middle of the wipe.
    await lab.machine.powerOn();
    await boot(0).running.waitForLine(startingWith(ATTEST_LINES.codeWritten));
    const first = await lab.run(NODE, 'provision', 60_000);
    await boot(0).running.waitForLine(within(asPrinted('wipe-disk', WIPE_LINES.zeroed), DISK));
    await lab.machine.powerLoss();

    // Power restored: no boot entry yet, so it netboots; this boot attests, takes a new code for
    // the same run, and Tinkerbell serves wipe-disk again, which wipes in this boot. The power
    // fails again as the installer starts.
    await lab.machine.powerOn();
    expect(boot(1).kind).toBe('hookos');
    await boot(1).running.waitForLine(startingWith(ATTEST_LINES.codeWritten));
    await boot(1).running.waitForLine(within(asPrinted('install', INSTALL_LINES.running), /.*/, /.*/));
    await lab.machine.powerLoss();
    expect(m.out(boot(1).number, 'wipe-disk.state')).toBe('success\n');
    expect(m.out(boot(1).number, 'wipe-disk.out')).toContain(printed('wipe-disk', WIPE_LINES.wiped(DISK, m.out(boot(1).number, 'boot_id')!.trim())));
    const wiped = readWiped();
    expect(wiped).toMatchObject({ bootId: m.out(boot(1).number, 'boot_id')!.trim(), disk: DISK, serial: DISK_SERIAL });
    const afterLoss = m.diskHashes();

    // Power restored: the run resumes at install in a boot that did not wipe; install refuses,
    // the run is FAILED there and fleetd says where to read, and the disk is as the lost boot left it.
    await lab.machine.powerOn();
    expect(boot(2).kind).toBe('hookos');
    const failed = await lab.ended(NODE, first.metadata.name, 300_000);
    expect(failed.status?.state).toBe('FAILED');
    expect(m.out(boot(2).number, 'install.state')).toBe('failure\n');
    expect(m.out(boot(2).number, 'install.out')).toContain(printed('install', SHARED_LINES.resumed(NOTHING.install)));
    expect(m.out(boot(2).number, 'wipe-disk.state')).toBeNull();
    const line = `${NODE}: Workflow ${first.metadata.name} ended FAILED at install (action completed); read journalctl -t hookos HOOKOS_HOST=10.0.1.11 on spore for the action's last lines. Fix the cause, then set desired_action to provision`;
    await lab.until('the failure journaled', NODE, async () => (await lab!.journal(NODE)).includes(line), 30_000);
    expect(readWiped()).toEqual(wiped);
    expect(m.diskHashes()).toEqual(afterLoss);
    expect(await status()).toBe('planned');

    // The runbook's action: set desired_action provision. The new run wipes and installs; the
    // power fails as the reboot begins, and the next power-on boots the disk next-boot named.
    const second = await lab.provisionAgain(NODE, 60_000);
    await lab.until("Rufio's power cycle", NODE, () => lab!.machine.boots.length >= 4, 120_000);
    expect(await workflow(first.metadata.name)).toBeUndefined();
    await boot(3).running.waitForLine(startingWith(ATTEST_LINES.codeWritten));
    await boot(3).running.waitForLine(/tink-agent: received action reboot/);
    await lab.machine.powerLoss();
    for (const action of ['wipe-disk', 'install', 'next-boot']) expect(m.out(boot(3).number, `${action}.state`), action).toBe('success\n');

    await lab.machine.powerOn();
    expect(boot(4).kind).toBe('disk');
    await boot(4).running.waitForLine(new RegExp(`^first-boot: the Talos config for ${NODE} is in `));
    await lab.until('the device active', NODE, async () => (await status()) === 'active', 30_000);
    // Tinkerbell never heard of the reboot: the run stays RUNNING at it until its global timeout.
    const open = await workflow(second.metadata.name);
    expect(open?.status?.state).toBe('RUNNING');
    expect((open?.status?.currentState as { actionName?: string } | undefined)?.actionName).toBe('reboot');
  }, 1_500_000);
});

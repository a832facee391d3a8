/**
 * The runbook's "Provision a control plane", end to end through the lab's own loop: an approved
 * control plane attests and waits in HookOS (fleetd never provisions one by itself); the owner
 * sets desired_action provision; fleetd starts the run and Rufio power-cycles the machine over its
 * BMC into a one-time netboot, whose attestation receives the install code; Tinkerbell runs the
 * Talos Template in HookOS, install running the Talos installer image through the guest's Docker
 * engine; the installed disk's first boot takes its machine config from talos.config, and the
 * device is active. Then it is retired: wiped, powered off, offline.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { RIG_CATALOGUE } from '../swtpm/rig.js';
import { nodeEntry } from './host.js';
import { Lab } from './lab/lab.js';
import { Timeline } from './lab/timeline.js';
import { Machine } from './machine.js';
import { e2eRun } from './manifest.js';

const run = e2eRun();
let lab: Lab | undefined;
afterAll(() => lab?.close());

const NODE = 'node-cp';
const DISK_SERIAL = 'E2E-NVME-CP';

describe.skipIf(run.skip !== null)('Provision a control plane', () => {
  it('attests and waits → desired_action provision → Rufio power-cycles it → the code → Talos installed through Docker → its first boot takes its config → active', async () => {
    const m = Machine.create(run, 'cp', run.tpm.a, [{ bus: 'nvme', serial: DISK_SERIAL }]);
    lab = await Lab.start(run, m, {
      nodes: { [NODE]: nodeEntry(m.serial, DISK_SERIAL, 'controlplane', run.tpm.a) },
      classes: { controlplane: { ...RIG_CATALOGUE.classes.controlplane, installer_image: run.registry.installer } },
      bmcOf: NODE,
    });

    // Plugged in and powered on: it attests, and waits in HookOS with no code.
    await lab.machine.powerOn();
    const first = lab.machine.boots[0]!;
    expect(first.kind).toBe('hookos');
    await first.running.waitForLine(/^attest: PASSED/);
    await new Promise((r) => setTimeout(r, 5_000)); // a few of fleetd's passes: none starts a run
    expect(await lab.objects('tinkerbell.org', 'workflows')).toEqual([]);
    expect(m.step(first.number, 'agent').lines).not.toContain('install code written');

    // The owner asks for the provision: fleetd starts the run and Rufio power-cycles the machine.
    const time = new Timeline('Provision a control plane, from desired_action provision');
    await lab.host.verifier.setDesiredAction(NODE, 'provision');
    const wf = await lab.run(NODE, 'provision', 60_000);
    expect(wf.metadata.name).toMatch(new RegExp(`^provision-${NODE}-\\d+$`));
    await lab.until('Rufio\'s power cycle', NODE, () => lab!.rufio.ran.find((j) => j.job === wf.metadata.name), 120_000);
    expect(lab.rufio.ran).toEqual([{ job: wf.metadata.name, failed: null }]);
    expect(first.result?.stopReason).toBe('host-qmp-quit');
    time.mark('→ the Workflow and Rufio\'s power cycle');
    const second = lab.machine.boots[1]!;
    expect(second.kind).toBe('hookos');
    await second.running.waitForLine(/^install code written/);
    time.mark('→ the netboot\'s attestation took the code');

    // Tinkerbell's run in HookOS: the installer pulled, Talos installed, the disk made the next boot.
    await lab.until('the reboot into the disk', NODE, () => lab!.machine.boots.length >= 3, 600_000);
    for (const action of ['wipe-disk', 'install', 'next-boot']) expect(m.out(second.number, `${action}.state`), action).toBe('success\n');
    expect(m.out(second.number, 'wipe-disk.out')).toContain(`wipe: pulled the installer image ${run.registry.installer}`);
    expect(m.out(second.number, 'install.out')).toContain(`install: installed Talos to /dev/nvme0n1`);
    const third = lab.machine.boots[2]!;
    expect(third.kind).toBe('disk');
    time.mark('→ its actions, to the reboot');

    // Its first boot takes the config talos.config names, once; the API server's SANs name the node.
    await third.running.waitForLine(new RegExp(`^first-boot: the Talos config for ${NODE} is in `));
    time.mark('→ the disk\'s first boot took its config');
    const config = parse(readFileSync(`${m.share}/out/boot-${third.number}/talos-config.yaml`, 'utf8')) as { machine: { type: string }; cluster: { apiServer: { certSANs: string[] } } };
    expect(config.machine.type).toBe('controlplane');
    expect(config.cluster.apiServer.certSANs).toEqual(expect.arrayContaining(['10.0.1.11', NODE]));
    await lab.until('the device active', NODE, async () => (await lab!.host.verifier.show(NODE)).record?.status === 'active', 30_000);
    time.mark('→ active');
    const done = await lab.ended(NODE, wf.metadata.name, 60_000);
    expect(done.status?.state).toBe('SUCCESS');
    console.warn(time.report(done));

    // And back out: retired, Rufio netboots it again, its run wipes the disk and powers it off,
    // the BMC reports it off, and the device is offline.
    await lab.host.verifier.setDesiredAction(NODE, 'retire');
    const retire = await lab.run(NODE, 'retire', 60_000);
    await lab.until('the device offline', NODE, async () => (await lab!.host.verifier.show(NODE)).record?.status === 'offline', 600_000);
    const fourth = lab.machine.boots[3]!;
    expect(fourth.kind).toBe('hookos');
    expect(fourth.result?.stopReason).toBe('guest-shutdown');
    expect(lab.machine.power).toBe('off');
    for (const action of ['wipe-disk', 'next-boot']) expect(m.out(fourth.number, `${action}.state`), action).toBe('success\n');
    expect(await lab.journal(NODE)).toContain(`${NODE} is retired: Workflow ${retire.metadata.name} wiped its disk, and its BMC reports it off`);
    // The disk, read from the host: both GPT copies zeroed, nothing left to boot.
    const disk = readFileSync(m.disks[0]!.file);
    expect(disk.subarray(0, 1 << 20).every((b) => b === 0)).toBe(true);
    expect(disk.subarray(disk.length - (1 << 20)).every((b) => b === 0)).toBe(true);
  }, 1_800_000);
});

/**
 * The runbook's "Provision a control plane", end to end through the lab's own loop: an approved
 * control plane attests and waits in HookOS (fleetd never provisions one by itself); the owner
 * sets desired_action provision; fleetd starts the run and Rufio power-cycles the machine over its
 * BMC into a one-time netboot, whose attestation receives the install code; Tinkerbell runs the
 * Talos Template in HookOS, install running the Talos installer image through the guest's Docker
 * engine; the installed disk's first boot takes its machine config from talos.config, and the
 * device is active. Then it is reinstalled the same way, under a new code, the first run's
 * objects replaced; then retired: wiped, powered off, offline.
 */
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ATTEST_LINES } from '../../agent/attest/lines.js';
import { INSTALL_LINES } from '../../images/tink-reprovision-tools/lines/install.js';
import { printed } from '../../images/tink-reprovision-tools/lines/printed.js';
import { WIPE_LINES } from '../../images/tink-reprovision-tools/lines/wipe.js';
import { startingWith } from '../line-pattern.js';
import { parse } from 'yaml';
import { RIG_CATALOGUE } from '../swtpm/rig.js';
import { nodeEntry } from './host.js';
import { Lab } from './lab/lab.js';
import type { Boot } from './lab/powered-machine.js';
import { Timeline } from './lab/timeline.js';
import { Machine } from './machine.js';
import { e2eRun } from './manifest.js';

const run = e2eRun();
let lab: Lab | undefined;
afterAll(() => lab?.close());

const NODE = 'node-cp';
const DISK_SERIAL = 'E2E-NVME-CP';

/**
 * One provision of the lab's control plane from desired_action provision to active: fleetd's run,
 * Rufio's power cycle of `before` (the boot the machine is in, or its last), the netboot's code,
 * Tinkerbell's actions in HookOS, the disk's first boot taking its config. Answers the run and the
 * disk's boot.
 */
async function provision(scenario: string, before: Boot): Promise<{ run: string; disk: Boot }> {
  const l = lab!;
  const m = l.machine.machine;
  const time = new Timeline(scenario);
  const boots = l.machine.boots.length;
  const wf = await l.provisionAgain(NODE, 60_000);
  expect(wf.metadata.name).toMatch(new RegExp(`^provision-${NODE}-\\d+$`));
  await l.until("Rufio's power cycle", NODE, () => l.rufio.ran.find((j) => j.job === wf.metadata.name), 120_000);
  expect(l.rufio.ran.at(-1)).toEqual({ job: wf.metadata.name, failed: null });
  expect(before.result?.stopReason).toMatch(/^(host-qmp-quit|guest-shutdown)$/);
  time.mark("→ the Workflow and Rufio's power cycle");
  await l.until('the netboot', NODE, () => l.machine.boots.length > boots, 60_000);
  const netboot = l.machine.boots[boots]!;
  expect(netboot.kind).toBe('hookos');
  await netboot.running.waitForLine(startingWith(ATTEST_LINES.codeWritten));
  time.mark("→ the netboot's attestation took the code");

  // Tinkerbell's run in HookOS: the installer pulled, Talos installed, the disk made the next boot.
  await l.until('the reboot into the disk', NODE, () => l.machine.boots.length > boots + 1, 600_000);
  for (const action of ['wipe-disk', 'install', 'next-boot']) expect(m.out(netboot.number, `${action}.state`), action).toBe('success\n');
  expect(m.out(netboot.number, 'wipe-disk.out')).toContain(printed('wipe-disk', WIPE_LINES.pulled(run.registry.installer)));
  expect(m.out(netboot.number, 'install.out')).toContain(printed('install', INSTALL_LINES.installed('/dev/nvme0n1')));
  // The runbook's "Watch the console": its phrases, on the console the actions wrote to themselves.
  const shown = netboot.running.lines.join('\n');
  for (const phrase of ['install code written', `wipe: /dev/nvme0n1 reports the serial ${DISK_SERIAL}`, 'install: installed Talos to /dev/nvme0n1'])
    expect(shown, phrase).toContain(phrase);
  const disk = l.machine.boots[boots + 1]!;
  expect(disk.kind).toBe('disk');
  time.mark('→ its actions, to the reboot');

  // Its first boot takes the config talos.config names, once; the API server's SANs name the node.
  await disk.running.waitForLine(new RegExp(`^first-boot: the Talos config for ${NODE} is in `));
  time.mark("→ the disk's first boot took its config");
  const config = parse(readFileSync(`${m.share}/out/boot-${disk.number}/talos-config.yaml`, 'utf8')) as {
    machine: { type: string };
    cluster: { apiServer: { certSANs: string[] } };
  };
  expect(config.machine.type).toBe('controlplane');
  expect(config.cluster.apiServer.certSANs).toEqual(expect.arrayContaining(['10.0.1.11', NODE]));
  await l.until('the device active', NODE, async () => (await l.host.verifier.show(NODE)).record?.status === 'active', 30_000);
  time.mark('→ active');
  // The config served is this run's: an earlier run's code unlocks nothing.
  expect((await l.journal(NODE)).filter((j) => j.startsWith('fleetd served the ')).at(-1)).toMatch(new RegExp(` of ${wf.metadata.name} to `));
  const done = await l.ended(NODE, wf.metadata.name, 60_000);
  expect(done.status?.state).toBe('SUCCESS');
  console.warn(time.report(done));
  return { run: wf.metadata.name, disk };
}

describe.skipIf(run.skip !== null)('Provision a control plane', () => {
  it('attests and waits → desired_action provision → Rufio power-cycles it → the code → Talos installed through Docker → its first boot takes its config → active → reinstalled → retired', async () => {
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
    await first.running.waitForLine(startingWith(ATTEST_LINES.passed));
    await new Promise((r) => setTimeout(r, 5_000)); // a few of fleetd's passes: none starts a run
    expect(await lab.objects('tinkerbell.org', 'workflows')).toEqual([]);
    expect(m.step(first.number, 'agent').lines).not.toContain(ATTEST_LINES.codeWritten());

    // The owner asks for the provision; then, once it is active, for a reinstall, which runs the
    // same way under a new code and replaces the first run's objects.
    const installed = await provision('Provision a control plane, from desired_action provision', first);
    const reinstalled = await provision('Reinstall the active control plane, from desired_action provision', installed.disk);
    expect(await lab.objects('tinkerbell.org', 'workflows')).toEqual([
      expect.objectContaining({ metadata: expect.objectContaining({ name: reinstalled.run }) }),
    ]);

    // And back out: retired, Rufio netboots it again, its run wipes the disk and powers it off,
    // the BMC reports it off, and the device is offline.
    await lab.host.verifier.setDesiredAction(NODE, 'retire');
    const retire = await lab.run(NODE, 'retire', 60_000);
    await lab.until('the device offline', NODE, async () => (await lab!.host.verifier.show(NODE)).record?.status === 'offline', 600_000);
    const retiring = lab.machine.boots[5]!;
    expect(retiring.kind).toBe('hookos');
    expect(retiring.result?.stopReason).toBe('guest-shutdown');
    expect(lab.machine.power).toBe('off');
    for (const action of ['wipe-disk', 'next-boot']) expect(m.out(retiring.number, `${action}.state`), action).toBe('success\n');
    expect(await lab.journal(NODE)).toContain(`${NODE} is retired: Workflow ${retire.metadata.name} wiped its disk, and its BMC reports it off`);
    // The disk, read from the host: both GPT copies zeroed, nothing left to boot.
    const disk = readFileSync(m.disks[0]!.file);
    expect(disk.subarray(0, 1 << 20).every((b) => b === 0)).toBe(true);
    expect(disk.subarray(disk.length - (1 << 20)).every((b) => b === 0)).toBe(true);
  }, 2_400_000);
});

/**
 * The runbook's "Plug a machine in", end to end through the lab's own loop: a declared node whose
 * entry approves no EK yet is powered on, HookOS's agent is refused pending-approval, the operator
 * approves its EKs with `fleet attest approve` and adds the lines to the nodes file, power-cycles
 * it, and it passes; fleetd starts its run's Workflow, Tinkerbell renders it and the machine's
 * tink-agent runs each action as a container on HookOS's Docker engine; the machine reboots into
 * the disk its firmware now names, whose first boot takes its seed from fleetd, and the device is
 * active.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ATTEST_LINES } from '../../agent/attest/lines.js';
import { startingWith } from '../line-pattern.js';
import { parse, stringify } from 'yaml';
import { nodeEntry } from './host.js';
import { Lab } from './lab/lab.js';
import { narrate } from './lab/narration.js';
import { Timeline } from './lab/timeline.js';
import { GUEST_FILES_URL, Machine } from './machine.js';
import { e2eRun } from './manifest.js';

const run = e2eRun();
let lab: Lab | undefined;
afterAll(() => lab?.close());

const NODE = 'node-plugin';
const DISK_SERIAL = 'E2E-NVME-PLUGIN';

/** The operator's edit: the claim's two lines added to the node's entry. */
function addApprovedLines(nodesFile: string, claim: string): void {
  const doc = parse(readFileSync(nodesFile, 'utf8')) as { nodes: Record<string, Record<string, unknown>> };
  for (const m of claim.matchAll(/^\s*(approved_ek_(?:rsa2048|eccp256)): ([0-9a-f]{64})$/gm)) doc.nodes[NODE]![m[1]!] = m[2];
  writeFileSync(nodesFile, stringify(doc));
}

describe.skipIf(run.skip !== null)('Plug a machine in', () => {
  it("declared → pending-approval → approved → PASSED → fleetd's Workflow run by Tinkerbell in HookOS → the disk boots", async () => {
    const m = Machine.create(run, 'plugin', run.tpm.a, [{ bus: 'nvme', serial: DISK_SERIAL }]);
    const image = run.installedImage;
    lab = await Lab.start(run, m, {
      nodes: { [NODE]: nodeEntry(m.serial, DISK_SERIAL, 'nixos') },
      classes: { nixos: { payload: 'nixos-image', image_url: `${GUEST_FILES_URL}/images/nixos.raw`, image_sha256: image.sha256 } },
      files: { '/images/nixos.raw': readFileSync(image.file) },
    });

    narrate(
      `The lab is up: fleetd, Kubernetes' API server with Tinkerbell's and Rufio's objects, Tinkerbell, a registry. ${NODE} is declared in the nodes file (its serial ${m.serial}, its disk's serial), with no EK approved yet.`,
    );
    // Connect the machine and power it on: it netboots HookOS, and fleetd has no EK to hold it to.
    await lab.machine.powerOn();
    const first = lab.machine.boots[0]!;
    expect(first.kind).toBe('hookos');
    await first.running.waitForLine(startingWith(ATTEST_LINES.failed, 'pending-approval', /.*/));

    // Approve its EKs: the claim's lines go into the entry, as the operator's pull request adds them.
    narrate(`fleetd refused it (pending-approval) and kept its claim. The operator runs: fleet attest approve ${m.serial}`);
    const claim = await lab.host.verifier.approve(m.serial);
    narrate(`It prints the claim and the lines for the entry; the operator compares the hashes with the receiving scan and adds them:\n${claim.trimEnd()}`);
    expect(claim).toContain(`approved_ek_rsa2048: ${run.tpm.a.ekHashRsa}`);
    addApprovedLines(lab.host.verifier.nodesFile, claim);

    // Power-cycle it, so that HookOS attests again.
    const time = new Timeline('Plug a machine in, from the approving power cycle');
    narrate('The operator power-cycles the machine, so that HookOS attests again.');
    await lab.machine.powerOff();
    await lab.machine.powerOn();
    const second = lab.machine.boots[1]!;
    expect(second.kind).toBe('hookos');
    await second.running.waitForLine(startingWith(ATTEST_LINES.passed));
    time.mark(`power cycle → ${ATTEST_LINES.passed()}`);

    // fleetd starts the run in this HookOS boot; Tinkerbell renders it.
    const wf = await lab.run(NODE, 'provision', 60_000);
    expect(wf.metadata.name).toMatch(new RegExp(`^provision-${NODE}-\\d+$`));
    time.mark('→ the Workflow');
    narrate(
      `fleetd admitted it, gave this boot an install code and started Workflow ${wf.metadata.name} in this HookOS boot; Tinkerbell renders it, and the machine's tink-agent runs each action as a container.`,
    );
    const journal = await lab.journal(NODE);
    expect(journal.find((l) => l.includes(`started Workflow ${wf.metadata.name}`))).toMatch(/HookOS/);

    // The actions run in HookOS, each a container; the last one reboots the machine into its disk.
    await lab.until('the reboot into the disk', NODE, () => lab!.machine.boots.length >= 3, 480_000);
    expect(second.result?.stopReason).toBe('guest-reset');
    for (const action of ['wipe-disk', 'image-to-disk', 'next-boot']) expect(m.out(second.number, `${action}.state`), action).toBe('success\n');
    const third = lab.machine.boots[2]!;
    expect(third.kind).toBe('disk');
    time.mark('→ its actions, to the reboot');
    narrate(
      'wipe-disk, image-to-disk and next-boot succeeded; reboot handed the reboot to a detached container, was reported, and the machine rebooted into its disk.',
    );

    // The installed system's first boot takes its seed over TLS, once, and the device is active.
    await third.running.waitForLine(new RegExp(`^first-boot: the seed for ${NODE} is in `));
    time.mark("→ the disk's first boot took its seed");
    await lab.until('the device active', NODE, async () => (await lab!.host.verifier.show(NODE)).record?.status === 'active', 30_000);
    time.mark('→ active');
    narrate(`The installed system's first boot took its seed from fleetd, once: ${NODE} is active.`);
    expect(await lab.journal(NODE)).toContain(`fleetd served the seed of ${wf.metadata.name} to 127.0.0.1`);

    // The reboot was reported before the machine went down: the Workflow succeeds, fleetd says so
    // and turns netboot off for the machine.
    const done = await lab.ended(NODE, wf.metadata.name, 60_000);
    expect(done.status?.state).toBe('SUCCESS');
    console.warn(time.report(done));
    narrate(
      `Workflow ${wf.metadata.name}: SUCCESS. fleetd journaled it and turned netboot off for the machine. ${NODE}'s journal:\n${(await lab.journal(NODE)).join('\n')}`,
    );
    await lab.until('the success journaled', NODE, async () => (await lab!.journal(NODE)).includes(`${NODE}: Workflow ${wf.metadata.name} succeeded`), 30_000);
    const hw = (await lab.objects('tinkerbell.org', 'hardware')).find((h) => h.metadata.name === NODE)!;
    expect(JSON.stringify(hw.spec)).toContain('"allowPXE":false');
  }, 900_000);
});

/**
 * Power losses on a disk-image class's run, in the middle of a write, each ending in a state of
 * the runbook's table:
 * - image-to-disk's first run of the image on the disk: power restored, the run resumes at
 *   image-to-disk in a boot that did not wipe, which refuses (`this run resumed in a new boot after
 *   wipe-disk; nothing written; …`); the run is FAILED there and the disk as the lost boot left it;
 * - set desired_action provision: the new run wipes and writes the image, and the power fails at
 *   next-boot's first write to the firmware's variables. What the next power-on boots is what the
 *   variables then hold: no entry yet, and HookOS's boot resumes the run at next-boot, which
 *   refuses and changes no entry; or the entry, and the disk boots, takes its seed, and the node
 *   is active while its Workflow never hears of next-boot's end.
 */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ATTEST_LINES } from '../../agent/attest/lines.js';
import { printed } from '../../images/tink-reprovision-tools/lines/printed.js';
import { NOTHING, SHARED_LINES } from '../../images/tink-reprovision-tools/lines/shared.js';
import { startingWith } from '../line-pattern.js';
import { nodeEntry } from './host.js';
import { Lab } from './lab/lab.js';
import { narrate } from './lab/narration.js';
import { GUEST_FILES_URL, Machine } from './machine.js';
import { e2eRun } from './manifest.js';
import { bootVariables } from './ovmf-vars.js';

const run = e2eRun();
let lab: Lab | undefined;
afterAll(() => lab?.close());

const NODE = 'node-image-power';
const DISK_SERIAL = 'E2E-NVME-IMGPOWER';
const GPT_SIGNATURE = Buffer.from('EFI PART');

/** Bytes `[offset, offset + length)` of a file the running QEMU writes through to. */
function bytesOf(file: string, offset: number, length: number): Buffer {
  const fd = openSync(file, 'r');
  try {
    const b = Buffer.alloc(length);
    readSync(fd, b, 0, length, offset);
    return b;
  } finally {
    closeSync(fd);
  }
}

/** Polls every few ms until `changed()`; the guest writes on while it polls, so the caller acts at once. */
async function whenChanged(what: string, changed: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!changed()) {
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe.skipIf(run.skip !== null)("power losses during a disk image's run", () => {
  it("mid image-to-disk the resumed run refuses and writes nothing; at next-boot's first write the next power-on boots what the variables hold, to a state of the runbook's table", async () => {
    const m = Machine.create(run, 'imgpower', run.tpm.a, [{ bus: 'nvme', serial: DISK_SERIAL }]);
    const image = run.installedImage;
    lab = await Lab.start(run, m, {
      nodes: { [NODE]: nodeEntry(m.serial, DISK_SERIAL, 'nixos', run.tpm.a) },
      classes: { nixos: { payload: 'nixos-image', image_url: `${GUEST_FILES_URL}/images/nixos.raw`, image_sha256: image.sha256 } },
      files: { '/images/nixos.raw': readFileSync(image.file) },
      bmcOf: NODE,
    });
    const disk = m.disks[0]!.file;
    const status = async () => (await lab!.host.verifier.show(NODE)).record?.status;
    const boot = (i: number) => lab!.machine.boots[i]!;
    const workflow = async (name: string) => (await lab!.objects('tinkerbell.org', 'workflows')).find((w) => w.metadata.name === name);
    const endedLine = async (name: string, action: string) =>
      (await lab!.journal(NODE)).some((l) =>
        l.startsWith(`${NODE}: Workflow ${name} ended FAILED at ${action} (action completed); read journalctl -t hookos `),
      );

    // A planned node attests: its run starts in this boot. The power fails once image-to-disk's
    // first run of the image reached the disk (the image's GPT header at LBA 1), with more to come.
    await lab.machine.powerOn();
    await boot(0).running.waitForLine(startingWith(ATTEST_LINES.codeWritten));
    const first = await lab.run(NODE, 'provision', 60_000);
    await boot(0).running.waitForLine(/tink-agent: received action image-to-disk/);
    await whenChanged("image-to-disk's first write", () => bytesOf(disk, 512, 8).equals(GPT_SIGNATURE), 300_000);
    await lab.machine.powerLoss();
    expect(m.out(boot(0).number, 'image-to-disk.state')).toBeNull();
    const afterLoss = m.diskHashes();
    expect(afterLoss[0]).not.toBe(image.sha256);
    narrate(`${NODE}'s power failed while image-to-disk wrote: the disk holds the image's first bytes, and no boot entry names it.`);

    // Power restored: no boot entry names the disk, so it netboots; the run resumes at
    // image-to-disk in a boot that did not wipe, which refuses; the disk is as the lost boot left it.
    await lab.machine.powerOn();
    expect(boot(1).kind).toBe('hookos');
    const failed = await lab.ended(NODE, first.metadata.name, 600_000);
    expect(failed.status?.state).toBe('FAILED');
    expect(m.out(boot(1).number, 'image-to-disk.state')).toBe('failure\n');
    expect(m.out(boot(1).number, 'image-to-disk.out')).toContain(printed('image-to-disk', SHARED_LINES.resumed(NOTHING['image-to-disk'])));
    expect(m.out(boot(1).number, 'wipe-disk.state')).toBeNull();
    await lab.until('the failure journaled', NODE, () => endedLine(first.metadata.name, 'image-to-disk'), 30_000);
    expect(m.diskHashes()).toEqual(afterLoss);
    expect(await status()).toBe('planned');

    // The runbook's action: desired_action provision. Rufio power-cycles it into a new run, which
    // wipes and writes the image; the power fails at next-boot's first write to the variables.
    const second = await lab.provisionAgain(NODE, 60_000);
    await lab.until("Rufio's power cycle", NODE, () => lab!.machine.boots.length >= 3, 120_000);
    await boot(2).running.waitForLine(/tink-agent: received action next-boot/);
    const vars = readFileSync(m.varsFile);
    await whenChanged("next-boot's first write to the variables", () => !readFileSync(m.varsFile).equals(vars), 120_000);
    await lab.machine.powerLoss();
    for (const action of ['wipe-disk', 'image-to-disk']) expect(m.out(boot(2).number, `${action}.state`), action).toBe('success\n');
    expect(m.out(boot(2).number, 'next-boot.state')).toBeNull();
    const written = m.diskHashes();
    const held = bootVariables(m.varsFile);

    await lab.machine.powerOn();
    // Which branch a run takes depends on how far the firmware's write got: said with the result.
    const entries = [...held.entries].map(
      ([n, e]) => `Boot${n.toString(16).toUpperCase().padStart(4, '0')} "${e.description}"${e.partition ? ' (a partition)' : ''}`,
    );
    console.warn(
      `e2e power loss at next-boot's first variable write: the variables held ${entries.join(', ')}; BootOrder ${held.bootOrder.join(',') || 'unset'}, BootNext ${held.bootNext ?? 'unset'}; the next power-on booted ${boot(3).kind === 'disk' ? 'the disk' : 'HookOS'}`,
    );
    narrate(
      `${NODE}'s power failed as next-boot wrote the firmware's variables; powered on, the firmware ${boot(3).kind === 'disk' ? 'found the entry and boots the disk' : 'found no entry for the disk and netboots'}.`,
    );
    if (boot(3).kind === 'hookos') {
      // The runbook's row for a run resumed in a new boot after wipe-disk: refused, nothing changed.
      const ended = await lab.ended(NODE, second.metadata.name, 600_000);
      expect(ended.status?.state).toBe('FAILED');
      expect(m.out(boot(3).number, 'next-boot.out')).toContain(printed('next-boot', SHARED_LINES.resumed(NOTHING['next-boot'])));
      await lab.until('the failure journaled', NODE, () => endedLine(second.metadata.name, 'next-boot'), 30_000);
      expect(m.diskHashes()).toEqual(written);
      expect(await status()).toBe('planned');
    } else {
      // The runbook's row "active, … passed its global timeout while … next-boot … was current".
      await boot(3).running.waitForLine(new RegExp(`^first-boot: the seed for ${NODE} is in `));
      await lab.until('the device active', NODE, async () => (await status()) === 'active', 60_000);
      const open = await workflow(second.metadata.name);
      expect(open?.status?.state).toBe('RUNNING');
      expect((open?.status?.currentState as { actionName?: string } | undefined)?.actionName).toBe('next-boot');
    }
  }, 1_500_000);
});

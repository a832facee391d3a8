/**
 * The power fails while install runs (QEMU killed): the next boot attests again and the run
 * resumes at install, which refuses, since the disk was wiped in another boot. The wipe record
 * survives on the machine's /worker, so the refusal comes from the boot id, not a missing file.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bootChecked } from './boot-checked.js';
import { nodeEntry, startHost, type Host } from './host.js';
import { Machine } from './machine.js';
import { e2eRun } from './manifest.js';

const run = e2eRun();
let host: Host | undefined;
afterAll(() => host?.close());

describe.skipIf(run.skip !== null)('a power loss during install', () => {
  it('the next boot\'s install refuses with the resumed-in-a-new-boot line', async () => {
    const m = Machine.create(run, 'powerloss', run.tpm.a, [{ bus: 'nvme', serial: 'E2E-NVME-POWER' }]);
    host = await startHost(run, m.dir, { nodes: { 'node-power': nodeEntry(m.serial, 'E2E-NVME-POWER', 'worker', run.tpm.a) }, lldp: true });
    // The host's registry holds the class's installer; the guest's Docker engine pulls it.
    const params = { DISK_SERIAL: 'E2E-NVME-POWER', INSTALLER_IMAGE: run.registry.installer, CONFIG_URL: 'https://10.0.2.100/v1/config', LLDP_WINDOW: '10' };

    await bootChecked(run, m, 'install-until-power-loss', params, host.services, async (boot) => {
      await boot.waitForLine(/install: running the installer /);
      boot.powerLoss();
    });
    const firstBoot = m.out(1, 'boot_id')!.trim();
    const readWiped = () => JSON.parse(readFileSync(join(m.share, 'worker/fleet/wiped'), 'utf8')) as { bootId: string };
    const wiped = readWiped();
    expect(m.step(1, 'wipe-disk').rc).toBe(0);
    // The guest's own Docker engine pulled the installer from the host's registry before the wipe.
    expect(m.step(1, 'wipe-disk').lines).toContain(`wipe: pulled the installer image ${run.registry.installer}`);
    // The plug was pulled while install ran: it never reported an exit code.
    expect(m.step(1, 'install').rc).toBeNull();
    // The whole record, as install reads it: a record it could not read would refuse the same way.
    expect(wiped).toEqual({ bootId: firstBoot, disk: '/dev/nvme0n1', serial: 'E2E-NVME-POWER', at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    const afterWipe = m.diskHashes();

    await bootChecked(run, m, 'install-resumed', params, host.services);
    const secondBoot = m.out(2, 'boot_id')!.trim();
    expect(m.step(2, 'agent').lines.slice(-2)).toEqual(['attest: PASSED', 'install code written']);
    // This boot holds a code and the record of the other boot's wipe when install starts.
    expect(m.out(2, 'worker-fleet.ls')!.trim().split('\n').sort()).toEqual(['attested', 'install_code', 'wiped']);
    expect(wiped.bootId).not.toBe(secondBoot);
    expect(m.step(2, 'install')).toEqual({ rc: 1, lines: ['install: this run resumed in a new boot after wipe-disk; nothing installed; set desired_action to provision'] });
    // ... before it pulled or ran the installer (this boot's engine holds no image), and it left
    // the record and the disk as they were.
    expect(m.out(2, 'docker-images')).toBe('');
    expect(readWiped()).toEqual(wiped);
    expect(m.diskHashes()).toEqual(afterWipe);
  }, 600_000);
});

/**
 * An attested machine with its code, among decoys: a USB disk that reports the declared serial,
 * two disks that report one serial, a declared /dev name that is another disk, and a declared
 * serial no disk reports. wipe-disk refuses each with its runbook line, and every disk is unchanged.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ATTEST_LINES } from '../../agent/attest/lines.js';
import { DISK_LINES, WHAT_IS_THERE } from '../../images/tink-reprovision-tools/lines/disk.js';
import { printed } from '../../images/tink-reprovision-tools/lines/printed.js';
import { bootChecked } from './boot-checked.js';
import { PLACEHOLDER_URL, startPlaceholderHost, type Host } from './host.js';
import { Machine } from './machine.js';
import { e2eRun } from './manifest.js';

const wipe = (line: string) => printed('wipe-disk', line);

const run = e2eRun();
let host: Host | undefined;
afterAll(() => host?.close());

describe.skipIf(run.skip !== null)('decoy disks', () => {
  it('each wipe is refused with its runbook line, and every disk stays byte-identical', async () => {
    const m = Machine.create(run, 'decoys', run.tpm.a, [
      { bus: 'nvme', serial: 'E2E-DECLARED' },
      { bus: 'virtio', serial: 'E2E-OTHER' },
      { bus: 'virtio', serial: 'E2E-TWIN' },
      { bus: 'virtio', serial: 'E2E-TWIN' },
      { bus: 'usb', serial: 'E2E-USB' },
      { bus: 'usb', serial: 'E2E-USB-FIXED', removable: false },
    ]);
    host = await startPlaceholderHost(run, m, { name: 'node-decoys', diskSerial: 'E2E-DECLARED', tpm: run.tpm.a }, true);
    const before = m.diskHashes();

    await bootChecked(run, m, 'decoy-disks', { DISK_SERIAL: 'E2E-DECLARED', IMAGE_URL: PLACEHOLDER_URL, LLDP_WINDOW: '10' }, host.services);

    // The refusals below come after the attestation and code checks: this boot had both.
    expect(m.step(1, 'agent').lines.slice(-2)).toEqual([ATTEST_LINES.passed(), ATTEST_LINES.codeWritten()]);
    // The guest named the disks as the lines below expect (virtio names follow PCI order).
    expect(m.out(1, 'disks.txt')!.trim().split('\n')).toEqual(['nvme0n1', 'sda', 'sdb', 'vda', 'vdb', 'vdc']);
    // The two USB disks enumerate in either order: the guest says which is which.
    const [removable, fixed] = ['usb-removable', 'usb-fixed'].map((f) => m.out(1, f)!.trim());
    expect([removable, fixed].sort()).toEqual(['sda', 'sdb']);
    expect(m.step(1, 'usb')).toEqual({ rc: 1, lines: [wipe(DISK_LINES.removable(removable!))] });
    expect(m.step(1, 'usb-fixed')).toEqual({ rc: 1, lines: [wipe(DISK_LINES.onUsb(fixed!))] });
    expect(m.step(1, 'twins')).toEqual({ rc: 1, lines: [wipe(DISK_LINES.manyReport('E2E-TWIN'))] });
    expect(m.step(1, 'other-name')).toEqual({
      rc: 1,
      lines: [wipe(DISK_LINES.elsewhere('/dev/vda', WHAT_IS_THERE.disk('E2E-OTHER'), 'E2E-DECLARED', 'nvme0n1'))],
    });
    expect(m.step(1, 'missing')).toEqual({ rc: 1, lines: [wipe(DISK_LINES.noneReports('E2E-GONE'))] });
    expect(m.diskHashes()).toEqual(before);
  });
});

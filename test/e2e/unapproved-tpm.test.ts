/**
 * A machine whose TPM the inventory does not approve (another swtpm state than any binding): the
 * verifier says pending-approval and keeps the claim, the agent writes no code, and wipe-disk,
 * run as the Template would, wipes nothing.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ATTEST_LINES } from '../../agent/attest/lines.js';
import { matching } from '../line-pattern.js';
import { printed } from '../../images/tink-reprovision-tools/lines/printed.js';
import { WIPE_LINES } from '../../images/tink-reprovision-tools/lines/wipe.js';
import { bootChecked } from './boot-checked.js';
import { PLACEHOLDER_URL, startPlaceholderHost, type Host } from './host.js';
import { Machine } from './machine.js';
import { e2eRun } from './manifest.js';

const run = e2eRun();
let host: Host | undefined;
afterAll(() => host?.close());

describe.skipIf(run.skip !== null)('a machine whose TPM no entry approves', () => {
  it('is pending-approval, gets no code, and nothing is wiped', async () => {
    const m = Machine.create(run, 'unapproved', run.tpm.b, [
      { bus: 'nvme', serial: 'E2E-NVME-UNAPPROVED' },
      { bus: 'virtio', serial: 'E2E-OTHER' },
    ]);
    // The entry names the machine's serial and disk, but approves no EK: its binding is not in yet.
    host = await startPlaceholderHost(run, m, { name: 'node-unapproved', diskSerial: 'E2E-NVME-UNAPPROVED' }, true);
    const before = m.diskHashes();

    await bootChecked(run, m, 'unapproved-tpm', { DISK_SERIAL: 'E2E-NVME-UNAPPROVED', IMAGE_URL: PLACEHOLDER_URL, LLDP_WINDOW: '10' }, host.services);

    const agent = m.step(1, 'agent');
    expect(agent.rc).toBe(0);
    expect(agent.lines.at(-1)).toMatch(matching(ATTEST_LINES.failed, 'pending-approval', /.+/));
    expect(agent.lines).not.toContain(ATTEST_LINES.codeWritten());
    expect(existsSync(join(m.share, 'worker/fleet/install_code'))).toBe(false);
    expect(m.out(1, 'worker-fleet.ls')!.trim()).toBe('');

    // The verdict only: no MAC, no attested facts. The claim carries this TPM's EK hashes.
    const { record } = await host.verifier.show('node-unapproved');
    expect(record).toMatchObject({ verdict: 'pending-approval', mac: null, attested: null });
    expect(host.verifier.audited('attest.verdict')).toEqual([expect.objectContaining({ verdict: 'pending-approval', serial: m.serial })]);
    const claim = await host.verifier.approve(m.serial);
    expect(claim).toContain(`approved_ek_rsa2048: ${run.tpm.b.ekHashRsa}`);
    expect(claim).toContain(`approved_ek_eccp256: ${run.tpm.b.ekHashEcc}`);

    const wipe = m.step(1, 'wipe-disk');
    expect(wipe).toEqual({ rc: 1, lines: [printed('wipe-disk', WIPE_LINES.notAttested())] });
    expect(m.diskHashes()).toEqual(before);
  });
});

/**
 * An approved machine whose switch sends no LLDP frame: it attests, the verifier records no switch
 * port and says so in the journal, and answers no code, so wipe-disk wipes nothing.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ATTEST_LINES } from '../../agent/attest/lines.js';
import { LLDP_LINES, LLDP_WHY } from '../../agent/lldp/lines.js';
import { printed } from '../../images/tink-reprovision-tools/lines/printed.js';
import { SHARED_LINES } from '../../images/tink-reprovision-tools/lines/shared.js';
import { bootChecked } from './boot-checked.js';
import { PLACEHOLDER_URL, startPlaceholderHost, type Host } from './host.js';
import { Machine } from './machine.js';
import { e2eRun } from './manifest.js';

const run = e2eRun();
let host: Host | undefined;
afterAll(() => host?.close());

describe.skipIf(run.skip !== null)('no LLDP on the boot NIC', () => {
  it('attests with no switch port, and the run waits', async () => {
    const m = Machine.create(run, 'silent', run.tpm.a, [{ bus: 'nvme', serial: 'E2E-NVME-SILENT' }]);
    host = await startPlaceholderHost(run, m, { name: 'node-silent', diskSerial: 'E2E-NVME-SILENT', tpm: run.tpm.a }, false);
    const before = m.diskHashes();

    await bootChecked(run, m, 'no-switch-port', { DISK_SERIAL: 'E2E-NVME-SILENT', IMAGE_URL: PLACEHOLDER_URL, LLDP_WINDOW: '5' }, host.services);

    const agent = m.step(1, 'agent');
    expect(agent.lines).toContain(LLDP_LINES.none('eth0', LLDP_WHY.timeout('5')));
    expect(agent.lines.at(-1)).toBe(ATTEST_LINES.passed());

    const { record, journal } = await host.verifier.show('node-silent');
    expect(record).toMatchObject({ verdict: 'attested', mac: m.mac, attested: { switchPort: null } });
    expect(journal.map((j) => j.message)).toContainEqual(
      expect.stringContaining('node-silent attested no switch port: the switch sent no LLDP frame within 35 seconds of the attestation'),
    );
    expect(host.verifier.audited('attest.install')).toEqual([expect.objectContaining({ issued: false })]);

    expect(m.step(1, 'wipe-disk')).toEqual({ rc: 1, lines: [printed('wipe-disk', SHARED_LINES.noInstallCode())] });
    expect(m.diskHashes()).toEqual(before);
  });
});

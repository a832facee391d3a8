import { afterEach, describe, expect, it } from 'vitest';
import { ATTEST_LINES } from '../../agent/attest/lines.js';
import { matching } from '../line-pattern.js';
import { runAttestation } from '../../agent/attest/run.js';
import { ekHashOfCertificate } from '../../shared/ek-cert/ek-certificate.js';
import { AttestationService } from '../../verifier/attest/service.js';
import { createAudit } from '../../verifier/audit.js';
import { buildServer, listen } from '../../verifier/http/server.js';
import { netboxFixture, TERRAFORM, type NetBoxFixture } from '../inventory/netbox-fixture.js';
import { testInstalls } from '../install/talos-fixture.js';
import { goldenTpm } from '../swtpm/provision.js';
import { RIG_PORT, startRig, type Rig } from '../swtpm/rig.js';

/**
 * The verifier with the NetBox backend (the fake NetBox), on a real TPM through the real HTTP
 * path: what the agent prints and exactly what NetBox holds afterwards.
 */
let rig: Rig | undefined;
let nb: NetBoxFixture | undefined;
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  await nb?.close();
  await rig?.close();
  rig = nb = close = undefined;
});

async function setup(binding: 'a' | 'b') {
  rig = await startRig();
  nb = await netboxFixture();
  const g = await goldenTpm(binding);
  await nb.declare([
    {
      hostname: 'node-1',
      serial: rig.boot.serial,
      className: 'worker',
      switchPort: RIG_PORT,
      address: '10.0.1.11/24',
      disk: '/dev/nvme0n1',
      diskSerial: 'S4EV1',
      binding: { rsa2048: ekHashOfCertificate(g.ekCertRsaDer), eccp256: ekHashOfCertificate(g.ekCertEccDer) },
    },
  ]);
  const audits: Array<Record<string, unknown>> = [];
  const audit = createAudit((l) => audits.push(JSON.parse(l) as Record<string, unknown>));
  const { installs, metrics } = await testInstalls(rig.dir, nb.inventory, rig.store, audit);
  // The intake of a planned worker: its attestation gets the code.
  const service = new AttestationService({ inventory: nb.inventory, store: rig.store, audit, installs, metrics, autoProvision: true });
  const app = buildServer({ service, metrics });
  const url = await listen(app, { host: '127.0.0.1', port: 0 }, false);
  close = () => app.close();
  const id = nb.ids.get('node-1')!;
  const attest = async () => {
    const lines: string[] = [];
    await runAttestation({
      tpm: rig!.tpm,
      client: { baseUrl: url },
      boot: rig!.boot,
      installCodePath: rig!.installCodePath,
      say: (l) => lines.push(l),
      tries: 1,
    });
    return lines;
  };
  const writes = () => nb!.fake.changes({ type: 'dcim.device', id }).length + nb!.fake.changes({ type: 'extras.journalentry' }).length;
  return { r: rig, f: nb, id, audits, attest, writes, metrics };
}

describe('admission with NetBox on a real TPM', () => {
  it('attested: NetBox holds the verdict, the attested_* fields, the MAC object and journal entries; a code at the intake', async () => {
    const { r, f, id, attest } = await setup('a');
    expect(await attest()).toEqual([ATTEST_LINES.passed(), ATTEST_LINES.codeWritten()]);
    const cf = f.fake.device(id).custom_fields;
    expect(cf).toMatchObject({
      attest_verdict: 'attested',
      attested_mac: r.boot.mac,
      attested_switch_port: RIG_PORT,
      attested_secure_boot: true,
      attested_boot_id: r.boot.bootId,
    });
    const d = (await f.inventory.deviceBySerial(r.boot.serial))!;
    expect(d.mac).toBe(r.boot.mac);
    expect((await f.inventory.journalOf(d)).map((j) => j.kind)).toEqual(['success', 'info']);
    expect(r.store.installCode(String(id))).not.toBeNull();
  });

  it('ek-binding-unauthored: a binding another user wrote admits no TPM, even the one it names', async () => {
    const { r, f, id, attest, audits } = await setup('b');
    // Someone with NetBox access swaps the binding to the TPM they hold (machine a's).
    const a = await goldenTpm('a');
    f.fake.addUser('mallory');
    f.fake.setCustomFieldAs('mallory', id, {
      approved_ek_hash: ekHashOfCertificate(a.ekCertRsaDer),
      approved_ek_hash_ecc: ekHashOfCertificate(a.ekCertEccDer),
    });
    const lines = await attest();
    expect(lines).toEqual([
      ATTEST_LINES.failed('ek-binding-unauthored', "the approved EK binding is not the one the trusted writer wrote; read the device's journal"),
    ]);
    const cf = f.fake.device(id).custom_fields;
    expect(cf).toMatchObject({ attest_verdict: 'ek-binding-unauthored', attested_mac: null, attested_at: null });
    const d = (await f.inventory.deviceBySerial(r.boot.serial))!;
    expect(await f.inventory.journalOf(d)).toEqual([
      expect.objectContaining({
        kind: 'danger',
        message: `node-1 was refused: approved_ek_hash was last written by mallory, not ${TERRAFORM}. Restore the binding from git and apply it again`,
      }),
    ]);
    expect(audits.find((l) => l.audit === 'attest.verdict')).toMatchObject({ verdict: 'ek-binding-unauthored', node: 'node-1' });
  });

  it('NetBox that does not answer: the try fails with a 500 the agent retries, nothing is written, and the error is counted', async () => {
    const { f, attest, writes, metrics } = await setup('a');
    const before = writes();
    f.fake.failNext(1000);
    const lines = await attest();
    expect(lines).toEqual([expect.stringMatching(matching(ATTEST_LINES.tryFailed, '1', /127\.0\.0\.1:\d+ answered 500/)), ATTEST_LINES.noVerdictAfter('1')]);
    f.fake.clearFaults();
    expect(writes()).toBe(before);
    expect(await metrics.registry.getSingleMetricAsString('fleet_errors_total')).toMatch(/^fleet_errors_total\{route="\/v1\/attest\/(start|finish)"\} [1-9]/m);
  });

  it('ek-hash-mismatch: NetBox is not written at all', async () => {
    const { attest, writes } = await setup('b');
    const before = writes();
    expect((await attest())[0]).toMatch(matching(ATTEST_LINES.failed, 'ek-hash-mismatch', /.*/));
    expect(writes()).toBe(before);
  });
});

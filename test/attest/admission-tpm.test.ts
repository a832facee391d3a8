import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { ATTEST_LINES } from '../../agent/attest/lines.js';
import { runAttestation } from '../../agent/attest/run.js';
import { ekHashOfCertificate } from '../../shared/ek-cert/ek-certificate.js';
import { buildLldpFrame } from '../lldp/frame.js';
import { goldenTpm } from '../swtpm/provision.js';
import { RIG_PORT, startRig, type Rig, type RigOptions } from '../swtpm/rig.js';

/**
 * The admission rules through the real HTTP path on a real TPM: what the agent prints, what the
 * device's state and journal hold afterwards, and what the audit lines say.
 */
let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

async function approvedRig(opts: RigOptions = {}, fields: Record<string, unknown> = {}) {
  rig = await startRig(opts);
  const g = await goldenTpm('a');
  const device = await rig.declare({
    approved_ek_rsa2048: ekHashOfCertificate(g.ekCertRsaDer),
    approved_ek_eccp256: ekHashOfCertificate(g.ekCertEccDer),
    ...fields,
  });
  return { r: rig, device };
}

async function attest(r: Rig) {
  const lines: string[] = [];
  await runAttestation({ tpm: r.tpm, client: { baseUrl: r.url }, boot: r.boot, installCodePath: r.installCodePath, say: (l) => lines.push(l), tries: 1 });
  const device = (await r.inventory.deviceByName('node-1'))!;
  const journal = (await r.inventory.journalOf(device)).map((j) => `${j.kind}: ${j.message}`);
  const install = r.audits.find((a) => a.audit === 'attest.install');
  const code = await readFile(r.installCodePath, 'utf8').catch(() => null);
  return { lines, journal, install, code, device, record: r.inventory.record('node-1') };
}

describe('admission rules on a real TPM', () => {
  it('a machine on another port than its entry declares is attested, journaled, and gets no code', async () => {
    const { r } = await approvedRig();
    r.runUnderWay('provision');
    r.boot.lldp = buildLldpFrame({ chassisMac: '24:5a:4c:00:00:01', portId: 'Port 7' });
    const out = await attest(r);
    expect(out.lines).toEqual([ATTEST_LINES.passed()]);
    expect(out.code).toBeNull();
    expect(out.journal).toContain('warning: node-1 attested on port Port 7, expected Port 5');
    expect(out.install).toMatchObject({ issued: false, reason: 'no provision: node-1 attested on port Port 7, expected Port 5' });
    expect(out.record?.attested?.switchPort).toBe('Port 7');
  });

  it('no LLDP frame: attested no switch port, no code', async () => {
    const { r } = await approvedRig();
    r.runUnderWay('provision');
    r.boot.lldp = null;
    const out = await attest(r);
    expect(out.code).toBeNull();
    expect(out.journal).toContain('warning: node-1 attested no switch port: the switch sent no LLDP frame within 35 seconds of the attestation');
    expect(out.record?.attested?.switchPort).toBeNull();
  });

  it('a device that lacks install_disk_serial: the journal says the run waits for it', async () => {
    const { r } = await approvedRig({}, { disk_serial: null });
    r.runUnderWay('provision');
    const out = await attest(r);
    expect(out.code).toBeNull();
    expect(out.journal).toContain('warning: node-1 lacks install_disk_serial; the run waits for install_disk_serial');
    expect(out.install).toMatchObject({ issued: false, reason: 'no provision: the device lacks install_disk_serial' });
  });

  it('auto-provision: a planned worker that attests gets its code and its provision starts', async () => {
    const { r } = await approvedRig({ autoProvision: true });
    const out = await attest(r);
    expect(out.lines).toEqual([ATTEST_LINES.passed(), ATTEST_LINES.codeWritten()]);
    expect(out.code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(out.device.desiredAction).toBe('provision');
    expect(out.journal).toContain('info: node-1 is a planned worker that attested from HookOS: its provision starts');
    expect(out.install).toMatchObject({ issued: true, intake: true, node: 'node-1' });
    expect(r.store.installCode('node-1')).toMatchObject({ run: null, bootId: r.boot.bootId });
  });

  it('a control plane is admitted but waits, even with auto-provision and desired_action, until its run is under way', async () => {
    const { r, device } = await approvedRig({ autoProvision: true }, { class: 'controlplane' });
    const first = await attest(r);
    expect(first.lines).toEqual([ATTEST_LINES.passed()]);
    expect(first.install).toMatchObject({ issued: false, reason: 'no provision: a control plane waits for desired_action provision' });
    await r.inventory.setDesiredAction(device, 'provision');
    r.audits.length = 0;
    expect((await attest(r)).lines).toEqual([ATTEST_LINES.passed()]);
    const run = r.runUnderWay('provision')!;
    r.audits.length = 0;
    const third = await attest(r);
    expect(third.lines).toEqual([ATTEST_LINES.passed(), ATTEST_LINES.codeWritten()]);
    expect(third.install).toMatchObject({ issued: true, run: run.name, intake: false });
    expect(r.store.installCode('node-1')).toMatchObject({ run: run.name });
  });

  it('an active worker that netboots is attested but not provisioned again by itself', async () => {
    const { r } = await approvedRig({ autoProvision: true });
    r.db.prepare("INSERT INTO device_state (hostname, status) VALUES ('node-1', 'active')").run();
    const out = await attest(r);
    expect(out.code).toBeNull();
    expect(out.install).toMatchObject({ issued: false, reason: 'no provision: the device is active' });
  });

  it('a retirement gets a code too: wipe-disk needs one; it renders no config', async () => {
    const { r } = await approvedRig();
    const run = r.runUnderWay('retire')!;
    const out = await attest(r);
    expect(out.lines).toEqual([ATTEST_LINES.passed(), ATTEST_LINES.codeWritten()]);
    expect(out.install).toMatchObject({ issued: true, run: run.name, intake: false });
    expect(r.audits.filter((a) => a.audit === 'fleet.render')).toEqual([]);
  });

  it("the rig's port is what the node declares", () => {
    expect(RIG_PORT).toBe('Port 5');
  });
});

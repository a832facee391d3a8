/**
 * A class's measured-boot policy against root in another OS on an approved machine, on swtpm: the
 * firmware's log is played into the TPM, then the other OS extends PCR 4 and PCR 7 as it likes and
 * sends a log it rewrote event by event. The quote is genuine; only what its digests prove may count.
 */
import { createHash } from 'node:crypto';
import { stat, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runAttestation } from '../../agent/attest/run.js';
import { ekHashOfCertificate } from '../../shared/ek-cert/ek-certificate.js';
import type { EventLog } from '../../shared/eventlog/log.js';
import { parseEventLog } from '../../shared/eventlog/parse.js';
import { EFI_GLOBAL_VARIABLE_GUID } from '../../shared/eventlog/secureboot.js';
import * as T from '../../shared/eventlog/types.js';
import { pcrExtend } from '../../shared/tpm/commands/pcr.js';
import { TPM_ALG } from '../../shared/tpm/constants.js';
import { eventBytes, eventWithDigests, findEvent, measuredEvent, rebuild, TOOLS, variableData, withJunkData, withType } from '../eventlog/fixtures.js';
import { nodeEntry } from '../node-entry.js';
import { goldenTpm } from '../swtpm/provision.js';
import { RIG_CATALOGUE, RIG_PORT, startRig, type Rig } from '../swtpm/rig.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** The digest the class lists as its HookOS image: the other OS extends PCR 4 with it. */
const HOOKOS = createHash('sha256').update('the HookOS UKI the class lists').digest('hex');
/** A recorded boot with Secure Boot off (tpm2-tools), which swtpm can play from locality 0. */
const SECURE_BOOT_OFF_LOG = `${TOOLS}event-arch-linux.bin`;

/** node-1, its EKs approved and its provision under way, in a worker class with this measured-boot policy. */
async function declare(r: Rig, policy: Record<string, unknown>): Promise<void> {
  const g = await goldenTpm('a');
  const classes = { ...RIG_CATALOGUE.classes, worker: { ...RIG_CATALOGUE.classes.worker, ...policy } };
  const node = nodeEntry({
    serial: r.boot.serial,
    switch_port: RIG_PORT,
    disk_serial: 'S4EVNF0M123456',
    approved_ek_rsa2048: ekHashOfCertificate(g.ekCertRsaDer),
    approved_ek_eccp256: ekHashOfCertificate(g.ekCertEccDer),
  });
  await writeFile(r.nodesPath, stringify({ ...RIG_CATALOGUE, classes, nodes: { 'node-1': node } }));
  r.runUnderWay('provision');
}

/** What the other OS does after the firmware: extends each event's SHA-256 digest into its PCR. */
async function extend(r: Rig, log: EventLog, events: Uint8Array[]): Promise<void> {
  const added = parseEventLog(rebuild([eventBytes(log)[0]!, ...events]));
  const bank = added.bankIndex('sha256');
  for (let i = 1; i < added.length; i++) await pcrExtend(r.tpm, added.pcrOf(i), [{ hashAlg: TPM_ALG.SHA256, digest: added.digestOf(i, bank)! }]);
}

/** The agent's one try with this log; whether it got an install code, and the verdict's audit line. */
async function attest(r: Rig, eventLog: Uint8Array) {
  await runAttestation({ tpm: r.tpm, client: { baseUrl: r.url }, boot: { ...r.boot, eventLog }, installCodePath: r.installCodePath, say: () => {}, tries: 1 });
  const code = await stat(r.installCodePath).then(
    () => true,
    () => false,
  );
  return { code, verdict: r.audits.find((a) => a.audit === 'attest.verdict'), install: r.audits.find((a) => a.audit === 'attest.install') };
}

function imageDigests(log: EventLog): string[] {
  return Array.from(log)
    .filter((e) => e.pcr === 4 && e.type === T.EV_EFI_BOOT_SERVICES_APPLICATION)
    .map((e) => Buffer.from(e.digests.get('sha256')!).toString('hex'));
}

describe('measured boot judged by what the TPM proves (swtpm)', () => {
  it('Secure Boot off cannot be relabelled on: the firmware’s events relabelled, a new SecureBoot=01 and separator extended', async () => {
    rig = await startRig({ bootLog: SECURE_BOOT_OFF_LOG });
    await declare(rig, { secure_boot: 'required' });
    const log = parseEventLog(rig.boot.eventLog!);
    const events = eventBytes(log);
    const secureBoot = findEvent(log, (e) => e.pcr === 7 && e.type === T.EV_EFI_VARIABLE_DRIVER_CONFIG);
    const separator = findEvent(log, (e) => e.pcr === 7 && e.type === T.EV_SEPARATOR);
    // The firmware's SecureBoot=00 and separator, now "authorities" with junk data: their digests, and so the replay, unchanged.
    const relabel = (e: Uint8Array) => withJunkData(withType(e, T.EV_EFI_VARIABLE_AUTHORITY));
    const rewritten = events.map((e, i) => (i === secureBoot || i === separator ? relabel(e) : e));
    const appended = [
      measuredEvent(log, 7, T.EV_EFI_VARIABLE_DRIVER_CONFIG, variableData(EFI_GLOBAL_VARIABLE_GUID, 'SecureBoot', new Uint8Array([1]))),
      measuredEvent(log, 7, T.EV_SEPARATOR, new Uint8Array(4)),
    ];
    await extend(rig, log, appended);
    const { code, verdict, install } = await attest(rig, rebuild([...rewritten, ...appended]));
    expect(verdict).toMatchObject({ verdict: 'attested' });
    expect(verdict!.secureBoot).toBeNull();
    expect(verdict!.secureBootProblem).toMatch(/SecureBoot measured after PCR 7's separator/);
    expect(install).toMatchObject({ issued: false, reason: expect.stringMatching(/cannot tell whether Secure Boot is on/) });
    expect(code).toBe(false);
  });

  it('Secure Boot on, as the firmware measured it, gets its code', async () => {
    rig = await startRig();
    await declare(rig, { secure_boot: 'required' });
    const { code, verdict } = await attest(rig, rig.boot.eventLog!);
    expect(verdict).toMatchObject({ verdict: 'attested', secureBoot: true });
    expect(code).toBe(true);
  });

  describe("an unlisted chain that extends PCR 4 with the listed image's digest", () => {
    it.each([
      ['as a boot application', T.EV_EFI_BOOT_SERVICES_APPLICATION, new Uint8Array(88)],
      ['as EV_IPL with unrelated data', T.EV_IPL, new TextEncoder().encode('grub_cmd: linux /vmlinuz')],
      ['as an EFI action', T.EV_EFI_ACTION, new TextEncoder().encode('Calling EFI Application from Boot Option')],
    ])('%s: no code', async (_name, type, data) => {
      rig = await startRig();
      await declare(rig, { secure_boot: 'required', hookos_images: [HOOKOS] });
      const log = parseEventLog(rig.boot.eventLog!);
      const forged = eventWithDigests(
        log,
        4,
        type,
        data,
        new Map(log.banks.map((b) => [b.name, b.name === 'sha256' ? Buffer.from(HOOKOS, 'hex') : new Uint8Array(b.size)])),
      );
      await extend(rig, log, [forged]);
      const { code, verdict, install } = await attest(rig, rebuild([...eventBytes(log), forged]));
      const ran = imageDigests(log);
      expect(verdict).toMatchObject({ verdict: 'attested', secureBoot: true, bootImages: [...ran, HOOKOS] });
      // Named: the first image the class does not list, which the firmware launched.
      expect(install).toMatchObject({ issued: false, reason: expect.stringContaining(`image 1 of ${ran.length + 1}: ${ran[0]}`) });
      expect(code).toBe(false);
    });
  });

  it('a class that lists every image the boot ran gives it its code', async () => {
    rig = await startRig();
    await declare(rig, { secure_boot: 'required', hookos_images: imageDigests(parseEventLog(rig.boot.eventLog!)) });
    const { code, verdict } = await attest(rig, rig.boot.eventLog!);
    expect(verdict).toMatchObject({ verdict: 'attested', secureBoot: true });
    expect(code).toBe(true);
  });
});

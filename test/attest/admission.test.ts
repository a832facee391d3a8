import { describe, expect, it } from 'vitest';
import { DEFAULT_BOOT_POLICY } from '../../verifier/attest/boot-policy.js';
import { admit, refuseBoot, type Admission, type AdmissionInput } from '../../verifier/attest/admission.js';
import { checkCabling } from '../../verifier/attest/cabling.js';
import { ATTEST_LINES, BOOT_WHY } from '../../verifier/attest/lines.js';
import { decide } from '../../verifier/attest/policy.js';
import type { Device } from '../../verifier/inventory/device.js';
import { device as fixtureDevice } from '../tinkerbell/fixtures.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const C = 'c'.repeat(64);

describe('the EK policy', () => {
  const entry = (binding: Record<string, string>) => ({ hostname: 'n1', binding });
  const both = [
    { kind: 'rsa2048' as const, hash: A },
    { kind: 'eccp256' as const, hash: B },
  ];

  it.each([
    ['no entry', null, both, 'pending-approval'],
    ['an entry that approves nothing', entry({}), both, 'pending-approval'],
    ['both approved and proven', entry({ rsa2048: A, eccp256: B }), both, 'attested'],
    ['RSA approved; the TPM proves more', entry({ rsa2048: A }), both, 'attested'],
    ['ECC approved and proven alone', entry({ eccp256: B }), [both[1]!], 'attested'],
    ['an approved kind the TPM did not prove', entry({ rsa2048: A, eccp256: B }), [both[0]!], 'ek-missing'],
    ['another EK of an approved kind', entry({ rsa2048: C }), both, 'ek-hash-mismatch'],
    ['a mismatch outranks a missing EK', entry({ rsa2048: C, eccp256: B }), [both[0]!], 'ek-hash-mismatch'],
    ['hashes swapped between kinds', entry({ rsa2048: B, eccp256: A }), both, 'ek-hash-mismatch'],
  ] as const)('%s → %s', (_name, e, proven, verdict) => {
    expect(decide(e, 'SN1', proven).verdict).toBe(verdict);
  });

  it('names the refused hash and the approved one', () => {
    expect(decide(entry({ rsa2048: C }), 'SN1', both).refused).toEqual({ kind: 'rsa2048', hash: A, approved: C });
  });
});

/** Declared with serial SN1 and an approved RSA EK; never attested, so no MAC recorded. */
const device = (over: Partial<Device> = {}): Device => fixtureDevice('n1', { serial: 'SN1', mac: undefined, binding: { rsa2048: A }, ...over });
/** Runs fleetd started that Tinkerbell has not finished. */
const PROVISION_RUN = { name: 'provision-n1-1764480000', kind: 'provision' as const };
const RETIRE_RUN = { name: 'retire-n1-1764480000', kind: 'retire' as const };
const onPort5 = { port: 'Port 5', names: ['Port 5'] };
const proven = [{ kind: 'rsa2048' as const, hash: A, certificate: null }];
const MAC = '52:54:00:12:34:56';
const AT = '2026-11-30T00:00:00.000Z';
/** The loader the firmware launched, the HookOS image it loaded, and another image. */
const IPXE = 'c3'.repeat(32);
const HOOKOS = 'a1'.repeat(32);
const OTHER_IMAGE = 'b2'.repeat(32);
const UNKNOWN = "no proven SecureBoot variable before PCR 7's separator";
const measured = (secureBoot: boolean | null, images: string[] | null = [IPXE, HOOKOS]): AdmissionInput['boot'] => ({
  ...input().boot,
  secureBoot,
  secureBootProblem: secureBoot === null ? UNKNOWN : null,
  images,
});
const bootRefusedLine = (why: string) => ATTEST_LINES.bootRefused('n1', why);
const input = (over: Partial<AdmissionInput> = {}): AdmissionInput => ({
  serial: 'SN1',
  boot: { mac: MAC, bootId: 'boot-1', secureBoot: true, secureBootProblem: null, images: [IPXE, HOOKOS], at: AT, peer: '10.0.1.11' },
  policy: DEFAULT_BOOT_POLICY,
  device: device(),
  proven,
  authorship: { authored: true },
  seen: onPort5,
  run: null,
  autoProvision: false,
  ...over,
});

describe('admission', () => {
  it.each<[string, Partial<AdmissionInput>, Record<string, unknown>]>([
    ['unknown serial: waits, claim kept, nothing written', { device: null }, { verdict: 'pending-approval', writes: ['keepClaim'] }],
    [
      'no binding: waits, claim kept, the verdict written',
      { device: device({ binding: {} }) },
      { verdict: 'pending-approval', writes: ['keepClaim', 'recordVerdict'] },
    ],
    [
      'another TPM: refused, nothing written, hash named',
      { proven: [{ kind: 'rsa2048', hash: C, certificate: null }] },
      { verdict: 'ek-hash-mismatch', writes: [], refused: { kind: 'rsa2048', hash: C, approved: A } },
    ],
    ['an approved EK missing: refused, nothing written', { device: device({ binding: { rsa2048: A, eccp256: B } }) }, { verdict: 'ek-missing', writes: [] }],
    [
      'binding not authored by bindingAuthor: refused, the verdict and a journal line',
      { authorship: { authored: false, reason: 'approved_ek_hash was last written by alice, not terraform' } },
      {
        verdict: 'ek-binding-unauthored',
        writes: ['recordVerdict', 'journal'],
        journal: [
          {
            kind: 'danger',
            message: 'n1 was refused: approved_ek_hash was last written by alice, not terraform. Restore the binding from git and apply it again',
          },
        ],
      },
    ],
    ['authorship not known: refused (fails closed)', { authorship: null }, { verdict: 'ek-binding-unauthored' }],
    [
      'attested, nothing asked, auto-provision off: no provision',
      {},
      { verdict: 'attested', writes: ['recordAttested', 'dropClaim', 'journal'], provision: { issue: false, reason: 'no provision: auto-provision is off' } },
    ],
    [
      'desired_action provision, no run started yet: no code (the run that starts power-cycles it, and that boot gets one)',
      { autoProvision: true, device: device({ desiredAction: 'provision', status: 'active', lastRun: 'provision-n1-1764480000' }) },
      {
        provision: {
          issue: false,
          reason: 'no provision: the device is active; desired_action provision waits for fleetd to start its run, whose boot gets the code',
        },
      },
    ],
    ['a run under way: a code for that run', { run: PROVISION_RUN }, { provision: { issue: true, run: PROVISION_RUN.name, kind: 'provision', intake: false } }],
    [
      'a run under way, auto-provision off, a control plane: still a code',
      { run: PROVISION_RUN, device: device({ controlPlane: true }) },
      { provision: { issue: true, run: PROVISION_RUN.name } },
    ],
    [
      'a retirement under way: a code (wipe-disk needs one), no class needed',
      { run: RETIRE_RUN, device: device({ status: 'decommissioning', className: undefined }) },
      { provision: { issue: true, run: RETIRE_RUN.name, kind: 'retire', intake: false } },
    ],
    [
      "auto-provision, a planned worker: the intake's code, for the run it starts",
      { autoProvision: true },
      { provision: { issue: true, run: null, kind: 'provision', intake: true } },
    ],
    [
      'auto-provision, a planned worker the owner also asked for: still the intake',
      { autoProvision: true, device: device({ desiredAction: 'provision' }) },
      { provision: { issue: true, intake: true } },
    ],
    [
      'auto-provision, a planned worker asked to retire: no intake',
      { autoProvision: true, device: device({ desiredAction: 'retire' }) },
      {
        provision: {
          issue: false,
          reason: 'no provision: its retirement has not started; desired_action retire waits for fleetd to start its run, whose boot gets the code',
        },
      },
    ],
    [
      'auto-provision, a control plane: waits',
      { autoProvision: true, device: device({ controlPlane: true }) },
      { provision: { issue: false, reason: 'no provision: a control plane waits for desired_action provision' } },
    ],
    [
      'a control plane with desired_action but no run yet: no code',
      { device: device({ controlPlane: true, desiredAction: 'provision' }) },
      {
        provision: {
          issue: false,
          reason:
            'no provision: a control plane waits for desired_action provision; desired_action provision waits for fleetd to start its run, whose boot gets the code',
        },
      },
    ],
    [
      'auto-provision, an active worker: no provision',
      { autoProvision: true, device: device({ status: 'active' }) },
      { provision: { issue: false, reason: 'no provision: the device is active' } },
    ],
    [
      'auto-provision, a last run not repeated: no provision',
      { autoProvision: true, device: device({ lastRun: 'provision-n1-1764480000' }) },
      { provision: { issue: false, reason: 'no provision: its last run provision-n1-1764480000 has not been repeated' } },
    ],
    [
      'on another port: journal, no provision',
      { run: PROVISION_RUN, seen: { port: 'Port 7', names: ['Port 7', 'uplink'] } },
      {
        provision: { issue: false, reason: 'no provision: n1 attested on port Port 7, expected Port 5' },
        journal: [attestedLine('Port 7'), { kind: 'warning', message: 'n1 attested on port Port 7, expected Port 5' }],
      },
    ],
    [
      'no LLDP frame: journal, no provision',
      { run: PROVISION_RUN, seen: { port: null, why: 'the switch sent no LLDP frame within 35 seconds of the attestation' } },
      {
        journal: [
          attestedLine('none'),
          { kind: 'warning', message: 'n1 attested no switch port: the switch sent no LLDP frame within 35 seconds of the attestation' },
        ],
      },
    ],
    [
      'a boot of a run refused its code (another port): the run remembers it, so a later boot may resume it',
      { run: PROVISION_RUN, seen: { port: 'Port 7', names: ['Port 7'] } },
      { provision: { issue: false }, writes: ['recordAttested', 'dropClaim', 'journal', 'journal', 'codeRefused'] },
    ],
    [
      'a later boot of that run, its cause fixed: a code, and the run asked for again, as an intake is',
      { run: { ...PROVISION_RUN, resumes: true } },
      {
        provision: {
          issue: true,
          run: null,
          kind: 'provision',
          intake: true,
          onIssue: [
            expect.objectContaining({ op: 'setDesiredAction', action: 'provision' }),
            expect.objectContaining({
              op: 'journal',
              message: 'n1 attested with what kept its run provision-n1-1764480000 from its code fixed: the run starts again in this boot',
            }),
          ],
        },
        journal: [attestedLine()],
      },
    ],
    [
      'lacking an address: journal says the run waits for it',
      { run: PROVISION_RUN, device: device({ address: undefined }) },
      {
        provision: { issue: false, reason: 'no provision: the device lacks address' },
        journal: [attestedLine(), { kind: 'warning', message: 'n1 lacks address; the run waits for address' }],
      },
    ],
    [
      'lacking install_disk_serial: journal says the run waits for it',
      { run: PROVISION_RUN, device: device({ installDiskSerial: undefined }) },
      {
        provision: { issue: false, reason: 'no provision: the device lacks install_disk_serial' },
        journal: [attestedLine(), { kind: 'warning', message: 'n1 lacks install_disk_serial; the run waits for install_disk_serial' }],
      },
    ],
    [
      'secure_boot required, Secure Boot off: attested, journal, no code',
      { run: PROVISION_RUN, policy: { secureBoot: 'required', hookosImages: null }, boot: measured(false) },
      {
        verdict: 'attested',
        provision: { issue: false, reason: `no provision: ${BOOT_WHY.secureBootOff()}` },
        journal: [attestedLine(), SECURE_BOOT_OFF, bootRefusedLine(BOOT_WHY.secureBootOff())],
      },
    ],
    [
      'secure_boot required, the log cannot tell: no code',
      { run: PROVISION_RUN, policy: { secureBoot: 'required', hookosImages: null }, boot: measured(null) },
      { verdict: 'attested', provision: { issue: false, reason: `no provision: ${BOOT_WHY.secureBootUnknown(UNKNOWN)}` } },
    ],
    [
      'Secure Boot off under the default policy: a warning, and the code as before',
      { run: PROVISION_RUN, boot: measured(false) },
      { verdict: 'attested', provision: { issue: true, run: PROVISION_RUN.name }, journal: [attestedLine(), SECURE_BOOT_OFF] },
    ],
    [
      'a log that cannot tell Secure Boot: a warning naming why',
      { run: PROVISION_RUN, boot: measured(null) },
      {
        provision: { issue: true, run: PROVISION_RUN.name },
        journal: [attestedLine(), { kind: 'warning', message: `n1's event log cannot tell whether Secure Boot is on: ${UNKNOWN}` }],
      },
    ],
    [
      'secure_boot required, Secure Boot on: a code',
      { run: PROVISION_RUN, policy: { secureBoot: 'required', hookosImages: null }, boot: measured(true) },
      { provision: { issue: true, run: PROVISION_RUN.name } },
    ],
    [
      'hookos_images lists every image the boot ran: a code',
      { run: PROVISION_RUN, policy: { secureBoot: 'recorded', hookosImages: [OTHER_IMAGE, HOOKOS, IPXE] }, boot: measured(false) },
      { provision: { issue: true, run: PROVISION_RUN.name } },
    ],
    [
      'hookos_images lists the loader but not what it ran: attested, journal names the digest, no code',
      { run: PROVISION_RUN, policy: { secureBoot: 'recorded', hookosImages: [IPXE] }, boot: measured(true) },
      {
        verdict: 'attested',
        provision: { issue: false, reason: `no provision: ${BOOT_WHY.imageNotListed(HOOKOS, '2', '2')}` },
        journal: [attestedLine(), bootRefusedLine(BOOT_WHY.imageNotListed(HOOKOS, '2', '2'))],
      },
    ],
    [
      'hookos_images lists what ran last but not the first: no code, the first named',
      { run: PROVISION_RUN, policy: { secureBoot: 'recorded', hookosImages: [HOOKOS] }, boot: measured(true) },
      { provision: { issue: false, reason: `no provision: ${BOOT_WHY.imageNotListed(IPXE, '1', '2')}` } },
    ],
    [
      'hookos_images set, PCR 4 holds nothing: no code',
      { run: PROVISION_RUN, policy: { secureBoot: 'recorded', hookosImages: [HOOKOS] }, boot: measured(true, []) },
      { provision: { issue: false, reason: `no provision: ${BOOT_WHY.noImage()}` } },
    ],
    [
      'hookos_images set, the log has no SHA-256 bank: no code',
      { run: PROVISION_RUN, policy: { secureBoot: 'recorded', hookosImages: [HOOKOS] }, boot: measured(true, null) },
      { provision: { issue: false, reason: `no provision: ${BOOT_WHY.noImage()}` } },
    ],
    [
      'an intake is held to the policy too',
      { autoProvision: true, policy: { secureBoot: 'recorded', hookosImages: [OTHER_IMAGE] } },
      { provision: { issue: false }, writes: ['recordAttested', 'dropClaim', 'journal', 'journal'] },
    ],
    [
      'lacking several fields: all named',
      { autoProvision: true, device: device({ installDisk: undefined, className: undefined, switchPort: undefined }) },
      {
        journal: [
          attestedLine(),
          { kind: 'warning', message: 'n1 lacks install_disk, switch_port, class; the run waits for install_disk and switch_port and class' },
        ],
      },
    ],
  ])('%s', (_name, over, expected) => {
    expect(summary(admit(input(over)))).toMatchObject(expected);
  });

  it('nothing asked and nothing wrong journals the attestation alone', () => {
    expect(summary(admit(input())).journal).toEqual([attestedLine()]);
  });

  it('every write carries what it writes: the claim, the attested facts, the device', () => {
    const pending = admit(input({ device: null }));
    expect(pending.writes).toEqual([
      { to: 'store', op: 'keepClaim', claim: { serial: 'SN1', at: AT, mac: MAC, peer: '10.0.1.11', switchPort: 'Port 5', eks: proven } },
    ]);
    const d = device();
    const attested = admit(input({ device: d }));
    expect(attested.writes.slice(0, 2)).toEqual([
      {
        to: 'inventory',
        op: 'recordAttested',
        device: d,
        facts: { at: AT, mac: MAC, bootId: 'boot-1', eks: { rsa2048: A }, secureBoot: true, switchPort: 'Port 5' },
      },
      { to: 'store', op: 'dropClaim', serial: 'SN1' },
    ]);
  });

  it("an intake asks for its run once its code is issued; an owner's request already made is not made again", () => {
    const d = device();
    const intake = admit(input({ autoProvision: true, device: d })).provision;
    const line = { to: 'inventory', op: 'journal', device: d, kind: 'info', message: 'n1 is a planned worker that attested from HookOS: its provision starts' };
    expect(intake).toMatchObject({ issue: true, onIssue: [{ to: 'inventory', op: 'setDesiredAction', device: d, action: 'provision' }, line] });
    const asked = device({ desiredAction: 'provision' });
    expect(admit(input({ autoProvision: true, device: asked })).provision).toMatchObject({ issue: true, onIssue: [{ ...line, device: asked }] });
    expect(admit(input({ run: PROVISION_RUN })).provision).toMatchObject({ issue: true, onIssue: [] });
  });

  it("a boot whose quote does not hold: the verdict reaches the device only from the device's own TPM", () => {
    const d = device();
    const refusal = { verdict: 'pcr-mismatch' as const, message: 'the PCR values do not hash to the quoted digest' };
    expect(refuseBoot(d, 'SN1', proven, refusal).writes).toEqual([{ to: 'inventory', op: 'recordVerdict', device: d, verdict: 'pcr-mismatch' }]);
    expect(refuseBoot(d, 'SN1', [{ kind: 'rsa2048', hash: C }], refusal).writes).toEqual([]);
    expect(refuseBoot(null, 'SN1', proven, refusal).writes).toEqual([]);
  });
});

/** An admission as the table reads it: each write by its op, and the journal lines alone. */
function summary(a: Admission) {
  return {
    ...a,
    writes: a.writes.map((w) => w.op),
    journal: a.writes.flatMap((w) => (w.op === 'journal' ? [{ kind: w.kind, message: w.message }] : [])),
  };
}

/** The line every admitted boot journals. */
const SECURE_BOOT_OFF = {
  kind: 'warning',
  message:
    'n1 booted with Secure Boot off, so its installed system will not show secureBoot: true; turn Secure Boot on in its firmware (secure_boot: required on its class refuses such boots a code)',
};
const attestedLine = (port = 'Port 5') => ({
  kind: 'success',
  message: `n1 attested from HookOS: its TPM proved every EK its entry approves (MAC ${MAC}, switch port ${port})`,
});

describe('cabling', () => {
  it('matches the Port ID or the Port Description, ignoring case and surrounding space only', () => {
    expect(checkCabling('n1', 'Port 5', { port: 'port 5 ', names: ['port 5 '] })).toEqual({ ok: true });
    expect(checkCabling('n1', 'eth5', { port: 'Port 5', names: ['Port 5', 'eth5'] })).toEqual({ ok: true });
    expect(checkCabling('n1', 'Port 5', { port: 'Port 15', names: ['Port 15'] }).ok).toBe(false);
    expect(checkCabling('n1', '5', { port: 'Port 5', names: ['Port 5'] }).ok).toBe(false);
  });
});

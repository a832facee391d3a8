/** Every line an attestation journals on its device (journal-line.ts). */
import { said } from '../../shared/text/line-def.js';
import { line } from '../journal-line.js';

export const ATTEST_LINES = {
  attested: line({
    kind: 'success',
    when: "a machine's TPM proved every EK its entry approves",
    args: ['node', 'MAC', 'switch port'],
    text: (node, mac, port) => `${node} attested from HookOS: its TPM proved every EK its entry approves (MAC ${mac}, switch port ${port})`,
  }),
  unauthored: line({
    kind: 'danger',
    when: 'the approved EK binding was last written by someone other than --binding-author (or its authorship is unknown)',
    args: ['node', 'why'],
    text: (node, why) => `${node} was refused: ${why}. Restore the binding from git and apply it again`,
  }),
  intake: line({
    kind: 'info',
    when: 'a planned worker attested from HookOS with auto-provision on, and got its code',
    args: ['node'],
    text: (node) => `${node} is a planned worker that attested from HookOS: its provision starts`,
  }),
  resumed: line({
    kind: 'info',
    when: "a run's earlier boot was refused its code, so wipe-disk wiped nothing and the run failed there; this boot got one",
    args: ['node', 'run'],
    text: (node, run) => `${node} attested with what kept its run ${run} from its code fixed: the run starts again in this boot`,
  }),
  noSwitchPort: line({
    kind: 'warning',
    when: "an attestation of a run's boot came with no usable LLDP frame: no code",
    args: ['node', 'why'],
    text: (node, why) => `${node} attested no switch port: ${why}`,
  }),
  otherPort: line({
    kind: 'warning',
    when: "an attestation of a run's boot came from another switch port than the declared one: no code",
    args: ['node', 'port', 'declared port'],
    text: (node, port, expected) => `${node} attested on port ${port}, expected ${expected}`,
  }),
  secureBootOff: line({
    kind: 'warning',
    when: "an attested boot's event log shows Secure Boot off (the runbook's last check wants secureBoot: true)",
    args: ['node'],
    text: (node) =>
      `${node} booted with Secure Boot off, so its installed system will not show secureBoot: true; turn Secure Boot on in its firmware (secure_boot: required on its class refuses such boots a code)`,
  }),
  secureBootUnknown: line({
    kind: 'warning',
    when: "an attested boot's event log cannot tell whether Secure Boot is on",
    args: ['node', 'problem'],
    text: (node, problem) => `${node}'s event log cannot tell whether Secure Boot is on: ${problem}`,
  }),
  bootRefused: line({
    kind: 'danger',
    when: "a run's boot attested, but its class's measured-boot policy (secure_boot, hookos_images) refuses it a code: nothing is wiped",
    args: ['node', 'why'],
    text: (node, why) => `${node} attested, but gets no install code: ${why}. Nothing is wiped; boot the machine into a HookOS image its class allows`,
  }),
};

/** Why a class's measured-boot policy refuses a boot its code: the <why> of bootRefused. */
export const BOOT_WHY = {
  secureBootOff: said({
    when: 'secure_boot: required, and the event log shows Secure Boot off',
    args: [],
    text: () => 'Secure Boot is off, and its class requires it',
  }),
  secureBootUnknown: said({
    when: "secure_boot: required, and the event log cannot tell (no proven SecureBoot variable before PCR 7's separator, or configuration measured after it)",
    args: ['problem'],
    text: (problem) => `the event log cannot tell whether Secure Boot is on (${problem}), and its class requires it`,
  }),
  noImage: said({
    when: 'hookos_images is set, and PCR 4 holds no image (or the log has no SHA-256 bank)',
    args: [],
    text: () => 'PCR 4 records no boot image, and its class lists hookos_images',
  }),
  imageNotListed: said({
    when: 'hookos_images is set, and an image the boot ran (measured into PCR 4) is not one of them',
    args: ['digest', 'position', 'count'],
    text: (digest, position, count) => `the boot ran an image that is not one of its class's hookos_images (PCR 4, image ${position} of ${count}: ${digest})`,
  }),
};

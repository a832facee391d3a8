/** Every line an attestation journals on its device (journal-line.ts). */
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
};

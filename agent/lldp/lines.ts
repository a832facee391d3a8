/** The console lines of the switch's LLDP frame, captured on the boot NIC while the TPM works. */
import { said } from '../../shared/text/line-def.js';

export const LLDP_LINES = {
  frame: said({
    when: "a frame arrived: the switch's system name (else its chassis id), the port id, and the port's description when the frame has one",
    args: ['switch', 'port', 'description'],
    text: (sw, port, description) => `lldp: switch ${sw}, port ${port}${description ? ` (${description})` : ''}`,
  }),
  unparsable: said({
    when: 'a frame arrived that does not parse: the verifier reads the same bytes, and says so too',
    args: ['why'],
    text: (why) => `lldp: a frame that does not parse: ${why}`,
  }),
  none: said({
    when: 'no frame (the window passed, or the capture could not run): the attestation goes on, and the verifier records no switch port',
    args: ['NIC', 'why'],
    text: (nic, why) => `lldp: no frame on ${nic} (${why}); the report says so`,
  }),
};

/** The `<why>` of `none`, besides the capture's own reason (libpcap missing, the NIC refused). */
export const LLDP_WHY = {
  timeout: said({
    when: 'no frame within the window',
    args: ['seconds'],
    text: (seconds) => `none within ${seconds} s`,
  }),
};

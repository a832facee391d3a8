/**
 * Every line a config or seed fetch journals on its device (journal-line.ts). `what` is the
 * document as a person names it (the Talos config, the seed), `document` as its route does.
 */
import { line } from '../journal-line.js';

export const INSTALL_LINES = {
  served: line({
    kind: 'success',
    when: 'the node acknowledged every byte of its config or seed (the device turns active)',
    args: ['document', 'run', 'peer'],
    text: (document, run, peer) => `fleetd served the ${document} of ${run} to ${peer}`,
  }),
  unacknowledged: line({
    kind: 'warning',
    when: "a fetch's answer was not acknowledged whole (the connection closed, or the write deadline passed)",
    args: ['what', 'peer', 'document'],
    text: (what, peer, document) =>
      `fleetd sent the ${what} to ${peer}, but the peer did not acknowledge all of it; the ${document} stays for one more fetch, from ${peer}`,
  }),
  unacknowledgedAgain: line({
    kind: 'warning',
    when: 'the one more fetch was not acknowledged whole either (the config or seed is spent)',
    args: ['what', 'peer', 'document'],
    text: (what, peer, document) =>
      `fleetd sent the ${what} to ${peer} again, and again the peer did not acknowledge all of it; fleetd answers no ${document} a third time. Set desired_action to provision`,
  }),
  askedElsewhere: line({
    kind: 'warning',
    when: 'a fetch from another address than the one whose answer went unacknowledged (once per address)',
    args: ['what', 'peer', 'first peer'],
    text: (what, peer, first) =>
      `the node asked for its ${what} from ${peer}, but fleetd answered it to ${first}, which did not acknowledge all of it; it stays for one more fetch from there alone`,
  }),
  refetched: line({
    kind: 'warning',
    when: 'the node asked again for a config or seed it was served (once per code)',
    args: ['what', 'served at', 'peer'],
    text: (what, servedAt, peer) => `the node asked again for the ${what} fleetd served it (at ${servedAt}, from ${peer})`,
  }),
  missing: line({
    kind: 'warning',
    when: 'the node asked with a code whose config or seed fleetd does not hold: expired, or fleetd restarted (once per code)',
    args: ['what', 'peer'],
    text: (what, peer) => `the node asked for its ${what}, and fleetd holds none for it (from ${peer})`,
  }),
  notPlanned: line({
    kind: 'warning',
    when: 'the node asked while its device is not planned (once per code and status)',
    args: ['what', 'status'],
    text: (what, status) => `the node asked for its ${what} while the device is ${status}; fleetd serves it only to a planned device`,
  }),
};

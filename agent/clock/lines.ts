/** The clock's console lines (set-clock.ts): one per boot that names fleet_ntp_server. */
import { said } from '../../shared/text/line-def.js';

export const CLOCK_LINES = {
  set: said({
    when: 'the clock was off by 0.5 s or more, and is set',
    args: ['server', 'seconds', 'behind or ahead', 'stratum'],
    text: (server, seconds, direction, stratum) => `clock: set from ${server} (it was ${seconds} s ${direction}, stratum ${stratum})`,
  }),
  close: said({
    when: 'the clock was within 0.5 s of the server, and is left alone',
    args: ['ms', 'server'],
    text: (ms, server) => `clock: within ${ms} ms of ${server}; left as is`,
  }),
  kept: said({
    when: 'no usable time (below): the attestation goes on',
    args: ['server', 'why', 'time'],
    text: (server, why, time) =>
      `clock: fleet_ntp_server ${server} gave no usable time (${why}); the clock stays ${time}, and TLS to the verifier fails if it is far off`,
  }),
  failed: said({
    when: 'setting the clock failed in a way setClock does not foresee (it says each failure it foresees as no usable time)',
    args: ['why'],
    text: (why) => `clock: ${why}`,
  }),
};

/** The `<why>` of `kept`, besides the SNTP client's own refusal (no answer, or an answer it does not believe). */
export const CLOCK_WHY = {
  implausible: said({
    when: 'the answer is before 2025 or after 2099',
    args: ['time'],
    text: (time) => `it says ${time}`,
  }),
  setFailed: said({
    when: 'the date command failed',
    args: ['why'],
    text: (why) => `setting it failed: ${why}`,
  }),
};

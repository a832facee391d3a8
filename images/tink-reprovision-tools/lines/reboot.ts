/** Every line reboot prints (after `reboot: `), and the pieces that differ between a reboot and a power-off. */
import { said } from '../../../shared/text/line-def.js';

export const REBOOT_LINES = {
  synced: said({ when: 'every disk is flushed (sync): first in the action, again in the detached container', args: [], text: () => 'synced the disks' }),
  noImage: said({
    when: "refuses: the action cannot find its own image on HookOS's Docker engine",
    args: ["docker's last line", 'what was not done'],
    text: (why, notDone) => `cannot find this action's image on HookOS's Docker engine (${why}); ${notDone}`,
  }),
  cannotStart: said({
    when: 'refuses: the detached container that acts on the machine does not start',
    args: ['what it does', "docker's last line", 'what was not done'],
    text: (job, why, notDone) => `cannot start the container that ${job} (${why}); ${notDone}`,
  }),
  handedOff: said({
    when: 'the detached container is started: the action exits 0, and tink-agent reports it',
    args: ['doing', 'seconds'],
    text: (doing, seconds) => `${doing} in ${seconds} s, once tink-agent has reported this action`,
  }),
  now: said({ when: 'the detached container pulls the sysrq trigger', args: ['doing'], text: (doing) => doing }),
};

/** reboot's failures: each printed as `failed: <message>` (SHARED_LINES.failed). */
export const REBOOT_FAILURES = {
  syncFailed: said({ when: 'sync exited non-zero', args: ["sync's last line"], text: (why) => `sync: ${why}` }),
};

/** POWER_OFF true powers the machine off (a retirement); anything else reboots it. */
export type Power = 'reboot' | 'off';

/** The `<doing>`. */
export const DOING: Record<Power, string> = { reboot: 'rebooting', off: 'powering off' };
/** The `<what it does>`. */
export const CONTAINER_DOES: Record<Power, string> = { reboot: 'reboots it', off: 'powers the machine off' };
/** The `<what was not done>`. */
export const NOT_DONE: Record<Power, string> = { reboot: 'the machine was not rebooted', off: 'the machine was not powered off' };

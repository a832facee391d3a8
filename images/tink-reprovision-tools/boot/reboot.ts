import { appendFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { BUNDLE_DIR } from '../actions.js';
import type { Action } from '../lib/action.js';
import type { ActionIO } from '../lib/io.js';
import { lastLine } from '../lib/run.js';
import { Refusal } from '../lib/refusal.js';
import { CONTAINER_DOES, DOING, NOT_DONE, type Power, REBOOT_FAILURES, REBOOT_LINES } from '../lines/reboot.js';

/** Set by the action on the container it hands the reboot to (the bundle then runs `rebootNow`); no Template sets it. */
export const REBOOT_DETACHED = 'FLEET_REBOOT_DETACHED';
/** How long the detached container waits: tink-agent reports the action within it. */
export const REBOOT_DELAY_S = 5;

/**
 * reboot: flushes every disk (sync), then reboots the machine, or powers it off for a retirement.
 * Tinkerbell's agent reports an action only after its container exits, so a machine rebooted from
 * inside the action never reports it, and its Workflow never succeeds. So the action hands the
 * reboot to a container of its own image, started detached on HookOS's engine (the socket the
 * Template mounts), and exits 0; that one waits REBOOT_DELAY_S, syncs again and pulls the kernel's
 * sysrq trigger, which acts on the whole machine from the host's PID namespace the Template gives
 * it (`s` syncs, `b` reboots at once, `o` powers off). Its own container would be killed with the
 * action's, so it cannot be a child of this one.
 */
export const reboot: Action<'reboot'> = async (env, io, say) => {
  const power = powerOf(env.POWER_OFF);
  await flush(io, say);
  // A container's host name is its id: Docker names the image this action runs in.
  const self = await io.run('docker', ['inspect', '--format', '{{.Config.Image}}', hostname()]);
  const image = self.stdout.trim();
  if (self.code !== 0 || !image) throw new Refusal(REBOOT_LINES.noImage(lastLine(self), NOT_DONE[power]));
  const handoff = await io.run('docker', [
    'run',
    '--detach',
    '--rm',
    '--privileged',
    '--pid',
    'host',
    '--env',
    `${REBOOT_DETACHED}=true`,
    '--env',
    `POWER_OFF=${env.POWER_OFF}`,
    image,
    'node',
    `${BUNDLE_DIR}/reboot.mjs`,
  ]);
  if (handoff.code !== 0) throw new Refusal(REBOOT_LINES.cannotStart(CONTAINER_DOES[power], lastLine(handoff), NOT_DONE[power]));
  say(REBOOT_LINES.handedOff(DOING[power], String(REBOOT_DELAY_S)));
};

/** The detached container's part: wait for the report, sync again, pull the trigger. */
export const rebootNow: Action<'reboot'> = async (env, io, say) => {
  const power = powerOf(env.POWER_OFF);
  await io.sleep(REBOOT_DELAY_S * 1000);
  await flush(io, say);
  say(REBOOT_LINES.now(DOING[power]));
  const trigger = join(io.procRoot, 'sysrq-trigger');
  await appendFile(trigger, 's');
  await appendFile(trigger, power === 'off' ? 'o' : 'b');
};

async function flush(io: ActionIO, say: (text: string) => void): Promise<void> {
  const sync = await io.run('sync', []);
  if (sync.code !== 0) throw new Error(REBOOT_FAILURES.syncFailed(lastLine(sync)));
  say(REBOOT_LINES.synced());
}

function powerOf(powerOff: string): Power {
  return powerOff === 'true' ? 'off' : 'reboot';
}

import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Action } from '../lib/action.js';
import { lastLine } from '../lib/run.js';

/**
 * reboot: flushes every disk (sync), then reboots the machine, or powers it off for a retirement,
 * through the kernel's sysrq trigger: it acts on the whole machine whatever namespace writes it
 * (`s` syncs once more, `b` reboots at once, `o` powers off), and needs no init to ask. The
 * Template runs it with the host's PID namespace; the machine never answers after it.
 */
export const reboot: Action<'reboot'> = async (env, io, say) => {
  const off = env.POWER_OFF === 'true';
  const sync = await io.run('sync', []);
  if (sync.code !== 0) throw new Error(`sync: ${lastLine(sync)}`);
  say('synced the disks');
  say(off ? 'powering off' : 'rebooting');
  const trigger = join(io.procRoot, 'sysrq-trigger');
  await appendFile(trigger, 's');
  await appendFile(trigger, off ? 'o' : 'b');
};

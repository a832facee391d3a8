import { confirmWipedDisk } from '../disk/locate.js';
import { espHoldsLoader, mtoolsImage, REMOVABLE_LOADER, theEsp } from '../disk/esp.js';
import { readGpt } from '../disk/read-gpt.js';
import type { Action } from '../lib/action.js';
import type { ActionIO } from '../lib/io.js';
import { Refusal } from '../lib/refusal.js';
import { lastLine } from '../lib/run.js';
import { NEXT_BOOT_FAILURES, NEXT_BOOT_LINES, UNSET } from '../lines/next-boot.js';
import { NOTHING, SHARED_LINES } from '../lines/shared.js';
import { entryLabel, loadsFrom, orderFirst, parseEfibootmgr, planEntries, type BootState } from './efibootmgr.js';

/**
 * next-boot: one active `fleet <os>` firmware entry that loads the removable-path loader from the
 * install disk's ESP, first in BootOrder and set as BootNext, then read back from the firmware.
 * A second run finds its entry and only re-asserts the order.
 */
export const nextBoot: Action<'next-boot'> = async (env, io, say) => {
  if (!env.OS) {
    say(NEXT_BOOT_LINES.skipped());
    return;
  }
  const disk = env.INSTALL_DISK;
  if (!disk) throw new Refusal(SHARED_LINES.noInstallDisk());
  await confirmWipedDisk(io, disk, NOTHING['next-boot']);
  const gpt = await readGpt(disk);
  const esp = theEsp(gpt, disk);
  if (!(await espHoldsLoader(io, mtoolsImage(disk, gpt!, esp)))) {
    throw new Refusal(NEXT_BOOT_LINES.noLoader(disk, String(esp.index)));
  }

  const label = entryLabel(env.OS);
  const plan = planEntries(await entries(io), label, esp.guid, REMOVABLE_LOADER);
  for (const num of plan.stale) {
    await efibootmgr(io, ['-q', '-b', num, '-B']);
    say(NEXT_BOOT_LINES.deletedStale(num, env.OS));
  }
  let num = plan.keep;
  if (num === null) {
    await efibootmgr(io, ['-q', '-c', '-d', disk, '-p', String(esp.index), '-L', label, '-l', REMOVABLE_LOADER]);
    num = planEntries(await entries(io), label, esp.guid, REMOVABLE_LOADER).keep;
    if (num === null) throw new Error(NEXT_BOOT_FAILURES.notCreated(env.OS, disk));
  }
  await efibootmgr(io, ['-q', '-o', orderFirst((await entries(io)).order, num, plan.stale).join(',')]);
  await efibootmgr(io, ['-q', '-n', num]);

  const back = await entries(io);
  const entry = back.entries.find((e) => e.num === num);
  if (!entry?.active || !loadsFrom(entry, esp.guid, REMOVABLE_LOADER) || back.next !== num || back.order[0] !== num) {
    throw new Error(NEXT_BOOT_FAILURES.notKept(num, back.next ?? UNSET, back.order.join(',') || UNSET));
  }
  say(NEXT_BOOT_LINES.entry(num, env.OS, String(esp.index), esp.guid, disk));
  say(NEXT_BOOT_LINES.order(num, back.order.join(',')));
};

async function entries(io: ActionIO): Promise<BootState> {
  return parseEfibootmgr(await efibootmgr(io, ['-v']));
}

async function efibootmgr(io: ActionIO, args: string[]): Promise<string> {
  const r = await io.run('efibootmgr', args);
  if (r.code !== 0) throw new Error(NEXT_BOOT_FAILURES.efibootmgrFailed(args.join(' '), lastLine(r)));
  return r.stdout;
}

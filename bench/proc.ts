import { readFile } from 'node:fs/promises';

/** A process's memory and CPU as the kernel counts them (/proc), for processes this bench started. */

/** MB resident now (VmRSS) or at the most so far (VmHWM). */
export async function rssMb(pid: number, which: 'VmRSS' | 'VmHWM'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = new RegExp(`^${which}:\\s+(\\d+) kB$`, 'm').exec(status);
  if (!kb) throw new Error(`/proc/${pid}/status has no ${which}`);
  return Number(kb[1]) / 1024;
}

/** Linux's USER_HZ, which /proc/<pid>/stat counts in: 100 on every architecture Node runs on. */
const TICK_MS = 10;

/** CPU ms used so far, user and system. */
export async function cpuMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are the 12th and 13th.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
}

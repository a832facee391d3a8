import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IMAGE_FAILURES } from '../lines/image.js';

/** What HookOS keeps for itself, the decompressors and this process while an image sits in RAM. */
const RESERVE_BYTES = 1 << 30;

/** How many bytes of image the machine can hold in RAM now: MemAvailable less the reserve. */
export async function ramCap(procRoot: string): Promise<number> {
  const meminfo = await readFile(join(procRoot, 'meminfo'), 'utf8');
  const kb = /^MemAvailable:\s+(\d+) kB$/m.exec(meminfo);
  if (!kb) throw new Error(IMAGE_FAILURES.noMemAvailable(join(procRoot, 'meminfo')));
  return Math.max(0, Number(kb[1]) * 1024 - RESERVE_BYTES);
}

export function mib(bytes: number): string {
  return (bytes / (1 << 20)).toFixed(0);
}

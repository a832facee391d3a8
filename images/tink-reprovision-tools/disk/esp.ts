import type { ActionIO } from '../lib/io.js';
import { Refusal } from '../lib/refusal.js';
import { DISK_LINES } from '../lines/disk.js';
import { PART_TYPE, type GptPartition } from './gpt.js';
import { byteOffset, type DiskGpt } from './read-gpt.js';

/** The loader every payload's image carries at the removable-media path, which firmware boots unasked. */
export const REMOVABLE_LOADER = '\\EFI\\BOOT\\BOOTX64.EFI';

/** mtools reads a FAT inside a disk at a byte offset; its geometry check only fails on a bare filesystem. */
export const MTOOLS_ENV = { MTOOLS_SKIP_CHECK: '1' };

/** The disk's one EFI system partition, by its GPT type GUID: none or two is a refusal, not a guess. */
export function theEsp(gpt: DiskGpt | null, disk: string): GptPartition {
  if (!gpt) throw new Refusal(DISK_LINES.noGpt(disk));
  const esps = gpt.partitions.filter((p) => p.type === PART_TYPE.efiSystem);
  if (esps.length === 0) throw new Refusal(DISK_LINES.noEsp(disk));
  if (esps.length > 1) throw new Refusal(DISK_LINES.manyEsps(disk, String(esps.length), esps.map((p) => p.index).join(', ')));
  return esps[0]!;
}

/** The FAT of a partition, as mtools names it: `<disk>@@<byte offset>`. */
export function mtoolsImage(disk: string, gpt: DiskGpt, p: GptPartition): string {
  return `${disk}@@${byteOffset(gpt, p)}`;
}

/** Whether the ESP holds the removable-path loader (read from the FAT, nothing mounted). */
export async function espHoldsLoader(io: ActionIO, image: string): Promise<boolean> {
  const r = await io.run('mdir', ['-b', '-i', image, `::${REMOVABLE_LOADER.replaceAll('\\', '/')}`], { env: MTOOLS_ENV });
  return r.code === 0;
}

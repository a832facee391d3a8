import { open } from 'node:fs/promises';
import { PART_TYPE, type GptPartition } from '../disk/gpt.js';
import { byteOffset, type DiskGpt } from '../disk/read-gpt.js';
import { IMAGE_FAILURES } from '../lines/image.js';

/**
 * The image's root partition, where cloud-init looks for its NoCloud seed: the one partition typed
 * Linux root (x86-64) by the Discoverable Partitions Specification, else the one Linux filesystem
 * partition holding ext4. Anything else is no single root: an error, not a first match.
 */
export function chooseRoot(parts: readonly GptPartition[], isExt4: ReadonlySet<number>): GptPartition | string {
  const typed = parts.filter((p) => p.type === PART_TYPE.linuxRootX86_64);
  const candidates = typed.length > 0 ? typed : parts.filter((p) => p.type === PART_TYPE.linuxFilesystem && isExt4.has(p.index));
  if (candidates.length !== 1) return IMAGE_FAILURES.rootCount(String(candidates.length));
  const root = candidates[0]!;
  return isExt4.has(root.index) ? root : IMAGE_FAILURES.rootNotExt4(String(root.index));
}

/** The indexes of the partitions whose superblock carries ext4's magic (0xEF53 at byte 1080). */
export async function ext4Partitions(path: string, gpt: DiskGpt): Promise<Set<number>> {
  const fh = await open(path, 'r');
  try {
    const found = new Set<number>();
    const magic = Buffer.alloc(2);
    for (const p of gpt.partitions) {
      await fh.read(magic, 0, 2, byteOffset(gpt, p) + 1080);
      if (magic.readUInt16LE(0) === 0xef53) found.add(p.index);
    }
    return found;
  } finally {
    await fh.close();
  }
}

import { open } from 'node:fs/promises';
import { parseGptEntries, parseGptHeader, type GptPartition } from './gpt.js';

export interface DiskGpt {
  lbaSize: number;
  partitions: GptPartition[];
}

/** The GPT on the disk (or image) at `path`, or null when it has none. */
export async function readGpt(path: string): Promise<DiskGpt | null> {
  const fh = await open(path, 'r');
  try {
    const head = Buffer.alloc(8192);
    await fh.read(head, 0, head.length, 0);
    const header = parseGptHeader(head);
    if (!header) return null;
    const array = Buffer.alloc(header.entryCount * header.entrySize);
    await fh.read(array, 0, array.length, Number(header.entriesLba) * header.lbaSize);
    return { lbaSize: header.lbaSize, partitions: parseGptEntries(header, array) };
  } finally {
    await fh.close();
  }
}

/** Where a partition starts, in bytes: what mtools' `@@offset` and e2fsprogs' `?offset=` take. */
export function byteOffset(gpt: DiskGpt, p: GptPartition): number {
  return Number(p.firstLba) * gpt.lbaSize;
}

import { open } from 'node:fs/promises';
import type { Disk } from '../disk/disk.js';
import type { ActionIO } from '../lib/io.js';
import { Refusal } from '../lib/refusal.js';
import { lastLine } from '../lib/run.js';
import { WIPE_FAILURES, WIPE_LINES } from '../lines/wipe.js';

const MIB = 1 << 20;

/**
 * The /dev nodes of the disk's partitions, each proven to be that partition by its device number
 * before anything is written (a stale or foreign node is refused, not wiped).
 */
export async function partitionNodes(io: ActionIO, disk: Disk): Promise<string[]> {
  const nodes: string[] = [];
  for (const p of disk.partitions) {
    const node = `/dev/${p.name}`;
    if ((await io.deviceNumber(node)) !== p.dev) throw new Refusal(WIPE_LINES.notPartition(node, p.name, p.dev, disk.name));
    nodes.push(node);
  }
  return nodes;
}

/**
 * Wipes the disk the way no installer or firmware finds anything old on it: every signature on its
 * partitions and on itself (wipefs), a discard where the disk takes one, both GPT copies (the first
 * and last MiB zeroed: discarded blocks need not read back as zeros), and the kernel's partitions
 * dropped. Running it again changes nothing more.
 */
export async function erase(io: ActionIO, say: (text: string) => void, disk: Disk, path: string, partitions: readonly string[]): Promise<void> {
  for (const node of [...partitions, path]) await must(io, say, 'wipefs', ['--all', node]);
  if (disk.discard) await must(io, say, 'blkdiscard', [path]);
  else say(WIPE_LINES.noDiscard(path));
  await zeroEnds(path, disk.sizeBytes);
  say(WIPE_LINES.zeroed(path));
  const reread = await io.run('blockdev', ['--rereadpt', path]);
  if (reread.code !== 0) say(WIPE_LINES.keptPartitions(path, lastLine(reread)));
}

async function must(io: ActionIO, say: (text: string) => void, cmd: string, args: string[]): Promise<void> {
  const r = await io.run(cmd, args);
  for (const line of r.lines) if (line.trim()) say(WIPE_LINES.toolSays(line));
  if (r.code !== 0) throw new Error(WIPE_FAILURES.toolFailed(`${cmd} ${args.join(' ')}`, String(r.code)));
}

async function zeroEnds(path: string, size: number): Promise<void> {
  const zeros = Buffer.alloc(Math.min(MIB, size));
  const fh = await open(path, 'r+');
  try {
    await fh.write(zeros, 0, zeros.length, 0);
    await fh.write(zeros, 0, zeros.length, size - zeros.length);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

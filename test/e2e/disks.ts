/** Disk files for e2e machines: each filled with a pattern of its own, so any write shows in its hash. */
import { createHash } from 'node:crypto';
import { openSync, closeSync, writeSync, readFileSync } from 'node:fs';

export const DISK_BYTES = 64 << 20;

/** `bytes` of "<label> <offset>\n" records: no two disks, and no two blocks, alike. */
export function patternedDisk(path: string, label: string, bytes = DISK_BYTES): void {
  const fd = openSync(path, 'w');
  try {
    const chunk = 1 << 20;
    for (let at = 0; at < bytes; at += chunk) {
      const buf = Buffer.alloc(chunk);
      let text = '';
      for (let o = at; text.length < chunk; o += 32) text += `${label} ${o}`.padEnd(31, '.') + '\n';
      buf.write(text.slice(0, chunk), 'latin1');
      writeSync(fd, buf, 0, chunk, at);
    }
  } finally {
    closeSync(fd);
  }
}

export const sha256File = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/**
 * One writer at a time in the e2e cache: two test runs at once (the lead's and CI's, say) would
 * otherwise extract, depmod and pack into the same directories together. mkdir is the lock.
 */
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** A lock older than this is a run that died holding it. */
const STALE_MS = 10 * 60_000;

export async function withCacheLock<T>(cacheRoot: string, fn: () => T | Promise<T>): Promise<T> {
  const lock = join(cacheRoot, '.lock');
  const deadline = Date.now() + STALE_MS;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > STALE_MS || Date.now() > deadline) rmSync(lock, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

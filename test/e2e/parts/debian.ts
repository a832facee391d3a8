/**
 * Debian packages taken apart, not installed: `apt-get download` + `dpkg-deb -x`, so the guest's
 * kernel and busybox never touch this machine's own (busybox-static conflicts with busybox).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const sh = (cmd: string, args: string[], cwd?: string): string =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });

/** The package a metapackage depends on first, e.g. linux-image-amd64 → linux-image-6.1.0-57-amd64. */
export function dependencyOf(meta: string): string {
  const depends = () => /Depends: (\S+)/.exec(sh('apt-cache', ['depends', meta]))?.[1];
  let dep: string | undefined;
  try {
    dep = depends();
  } catch {
    // A fresh machine may have empty package lists.
  }
  if (!dep) {
    sh('apt-get', ['update', '-q']);
    dep = depends();
  }
  if (!dep) throw new Error(`apt-cache depends ${meta} names no dependency`);
  return dep;
}

/**
 * Extracts `pkg` into `dest` (made whole or not at all: a crash leaves no half tree). apt-get
 * fetches as root into the work dir; empty package lists get one `apt-get update`.
 */
export function extractPackage(pkg: string, dest: string, workRoot: string): void {
  const work = mkdtempSync(join(workRoot, `deb-${pkg}-`));
  try {
    try {
      sh('apt-get', ['download', '-q', pkg], work);
    } catch {
      sh('apt-get', ['update', '-q']);
      sh('apt-get', ['download', '-q', pkg], work);
    }
    const deb = readdirSync(work).find((f) => f.endsWith('.deb'));
    if (!deb) throw new Error(`apt-get download ${pkg} left no .deb`);
    sh('dpkg-deb', ['-x', join(work, deb), join(work, 'tree')]);
    renameSync(join(work, 'tree'), dest);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

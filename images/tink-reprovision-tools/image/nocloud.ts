import { lstat, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ActionIO } from '../lib/io.js';
import { Refusal } from '../lib/refusal.js';
import { lastLine } from '../lib/run.js';
import { DOWNLOAD_OF, IMAGE_FAILURES, IMAGE_LINES } from '../lines/image.js';
import { download } from './download.js';
import { NOCLOUD_DIR } from './seed-places.js';

/** A seed is a few small files (user-data, meta-data, network-config). */
const SEED_CAP = 64 << 20;

/** Names debugfs takes unquoted, and no way out of the seed directory. */
const SAFE_NAME = /^(?!.*(^|\/)\.\.?(\/|$))[A-Za-z0-9._/-]+$/;

/**
 * The node's seed, fetched in HookOS from `<SEED_URL>/<install code>` (the code is the node's one
 * secret, as in its Talos config URL) and unpacked into `dir`: the relative paths of its files. A
 * seed with anything but plain files and directories (a link would copy HookOS's files) is refused.
 */
export async function fetchNocloudSeed(io: ActionIO, seedUrl: string, code: string, dir: string, say: (text: string) => void): Promise<string[]> {
  const what = DOWNLOAD_OF.seed(seedUrl);
  const tar = await download(`${seedUrl.replace(/\/+$/, '')}/${code}`, what, SEED_CAP, say);
  const tarFile = join(dir, 'seed.tar');
  await writeFile(tarFile, Buffer.concat(tar.chunks), { mode: 0o600 });
  const out = join(dir, 'seed');
  await mkdir(out, { mode: 0o700 });
  const x = await io.run('tar', ['-x', '-f', tarFile, '-C', out, '--no-same-owner', '--no-same-permissions']);
  if (x.code !== 0) throw new Refusal(IMAGE_LINES.seedNoTar(what, lastLine(x)));
  const files = await plainFiles(out, '');
  if (files.length === 0) throw new Refusal(IMAGE_LINES.seedEmpty(what));
  return files;
}

async function plainFiles(root: string, rel: string): Promise<string[]> {
  const files: string[] = [];
  for (const name of (await readdir(join(root, rel))).sort()) {
    const path = rel ? `${rel}/${name}` : name;
    const st = await lstat(join(root, path));
    if (!SAFE_NAME.test(path)) throw new Refusal(IMAGE_LINES.seedBadName(path));
    if (st.isDirectory()) files.push(...(await plainFiles(root, path)));
    else if (st.isFile()) files.push(path);
    else throw new Refusal(IMAGE_LINES.seedNotFile(path));
  }
  return files;
}

/**
 * The debugfs commands that put the seed's files under NOCLOUD_DIR, root-owned, mode 0600 (user-data
 * may hold secrets): make each directory (debugfs says so when it exists), replace each file.
 */
export function debugfsWriteScript(files: readonly string[], localDir: string): string {
  const dirs = new Set<string>();
  const lines: string[] = [];
  for (const f of files) {
    const parts = `${NOCLOUD_DIR}/${f}`.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
  }
  for (const d of dirs) lines.push(`mkdir /${d}`);
  for (const f of files) {
    const dest = `/${NOCLOUD_DIR}/${f}`;
    lines.push(`rm ${dest}`, `write ${localDir}/${f} ${dest}`, `sif ${dest} mode 0100600`, `sif ${dest} uid 0`, `sif ${dest} gid 0`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Writes the seed into the ext4 root at `fs` (e2fsprogs' `<disk>?offset=<bytes>`: no mount) and
 * reads each file back. debugfs exits 0 whatever its commands did, so the read-back is the check.
 */
export async function writeNocloudSeed(io: ActionIO, fs: string, files: readonly string[], dir: string): Promise<void> {
  const local = join(dir, 'seed');
  const script = join(dir, 'write.debugfs');
  await writeFile(script, debugfsWriteScript(files, local));
  const w = await io.run('debugfs', ['-w', '-f', script, fs]);
  if (w.code !== 0) throw new Error(IMAGE_FAILURES.debugfsWriteFailed(lastLine(w)));
  const back = join(dir, 'back');
  await mkdir(back, { mode: 0o700 });
  const dumps = files.map((f, i) => `dump /${NOCLOUD_DIR}/${f} ${back}/${i}`).join('\n');
  await writeFile(script, `${dumps}\n`);
  const r = await io.run('debugfs', ['-f', script, fs]);
  if (r.code !== 0) throw new Error(IMAGE_FAILURES.debugfsReadFailed(lastLine(r)));
  for (const [i, f] of files.entries()) {
    const got = await readFile(join(back, String(i))).catch(() => null);
    if (!got?.equals(await readFile(join(local, f)))) throw new Error(IMAGE_FAILURES.nocloudNotBack(f));
  }
}

import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imageToDisk } from '../../images/tink-reprovision-tools/image/image-to-disk.js';
import { DOWNLOAD_OF, IMAGE_FAILURES, IMAGE_LINES } from '../../images/tink-reprovision-tools/lines/image.js';
import { printed } from '../../images/tink-reprovision-tools/lines/printed.js';
import { SHARED_LINES, NOTHING, WHY } from '../../images/tink-reprovision-tools/lines/shared.js';
import { wipeDisk } from '../../images/tink-reprovision-tools/wipe/wipe-disk.js';
import { usedDisk } from './disk-images.js';
import { setProductUuid } from './fake-sysfs.js';
import { Files } from './http.js';
import { Loops, mirrorLoop, sha256sum } from './loop.js';
import { Rig } from './rig.js';

/**
 * image-to-disk on a real disk: images raw and packed (gzip, xz, zstd) from a loopback server,
 * checked before the first write, read back after it; fleet-seed.json read back from the FAT with
 * mtools, the NoCloud seed from the ext4 root with debugfs; each run twice; every refusal writes
 * nothing.
 */
const MIB = 1 << 20;
const IMAGE_BYTES = 48 * MIB;
const ESP_END = (2048 + 16 * 2048) * 512;
const UUID = '4c4c4544-0050-3310-8033-b4c04f4d4e31';
const loops = new Loops();
const files = new Files();
let rig: Rig;
let disk: string;
let raw: Buffer;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const said = (line: string) => printed('image-to-disk', line);
const spent = said(IMAGE_LINES.seedSpent());
const mtools = { ...process.env, MTOOLS_SKIP_CHECK: '1' };

beforeAll(async () => {
  rig = await Rig.create({ allowLoop: true });
  await setProductUuid(rig.sys, UUID.toUpperCase());
  const image = join(rig.dir, 'image.raw');
  await usedDisk(image, IMAGE_BYTES);
  raw = await readFile(image);
  files.served.set('/image.raw', raw);
  for (const [ext, cmd] of [
    ['gz', ['gzip', '-c']],
    ['xz', ['xz', '-c', '-T1', '-0']],
    ['zst', ['zstd', '-c', '-q']],
  ] as const) {
    files.served.set(`/image.raw.${ext}`, execFileSync(cmd[0], [...cmd.slice(1), image], { maxBuffer: 256 * MIB }));
  }
  const seed = join(rig.dir, 'seed');
  await mkdir(seed);
  await writeFile(join(seed, 'user-data'), '#cloud-config\nhostname: node-7\n');
  await writeFile(join(seed, 'meta-data'), 'instance-id: node-7\n');
  files.served.set(`/seed/${rig.code}`, execFileSync('tar', ['-c', '-C', seed, 'user-data', 'meta-data']));
  await files.start();
  const file = join(rig.dir, 'disk.img');
  await usedDisk(file);
  disk = loops.attach(file);
});
afterAll(async () => {
  await files.stop();
  loops.detachAll();
  await rig.cleanup();
});

/** A fresh boot that attested, with the disk wiped in it. */
async function wipedInNewBoot(): Promise<void> {
  await rig.setBootId(randomUUID());
  await rig.attest();
  await mirrorLoop(rig.sys, disk, 'SN-IMAGE');
  // wipe-disk as the provision-image Template runs it.
  const e = env('nixos-image', '/image.raw');
  const r = await rig.perform('wipe-disk', wipeDisk, {
    WIPE: 'true',
    INSTALL_DISK: disk,
    INSTALL_DISK_SERIAL: 'SN-IMAGE',
    INSTALL: 'true',
    OS: e.OS,
    IMAGE_URL: e.IMAGE_URL,
    IMAGE_SHA256: e.IMAGE_SHA256,
    SEED_URL: e.SEED_URL,
  });
  expect(r.code, r.lines.join('\n')).toBe(0);
}

const env = (os: string, path: string, more: Record<string, string> = {}) => ({
  OS: os,
  INSTALL_DISK: disk,
  IMAGE_URL: files.url(path),
  IMAGE_SHA256: sha(files.served.get(path) ?? Buffer.alloc(0)),
  SEED_URL: files.url('/seed'),
  NODE: 'node-7',
  ...more,
});

/** The paths the server was asked to GET since request `from`. */
const getsSince = (from: number) =>
  files.requests
    .slice(from)
    .filter((q) => q.method === 'GET')
    .map((q) => q.path);
const seedPath = () => `/seed/${rig.code}`;

async function diskBytes(from: number, to: number): Promise<Buffer> {
  const fh = await open(disk, 'r');
  try {
    const b = Buffer.alloc(to - from);
    await fh.read(b, 0, b.length, from);
    return b;
  } finally {
    await fh.close();
  }
}

describe('image-to-disk writes a checked image and its seed', () => {
  it.each([
    ['nixos-image', '/image.raw', 'raw'],
    ['alpine-image', '/image.raw.zst', 'zstd'],
  ])('%s from %s: fleet-seed.json on the ESP; twice', async (os, path, format) => {
    await wipedInNewBoot();
    for (let run = 0; run < 2; run++) {
      const r = await rig.perform('image-to-disk', imageToDisk, env(os, path));
      expect(r.code, r.lines.join('\n')).toBe(0);
      const served = files.served.get(path)!;
      expect(r.lines).toContain(said(IMAGE_LINES.downloaded((served.length / MIB).toFixed(0), format, sha(served))));
      expect(r.lines).toContain(said(IMAGE_LINES.wrote(String(IMAGE_BYTES), disk, sha(raw))));
      expect(r.lines.at(-1)).toBe(said(IMAGE_LINES.fleetSeedPut('1')));
      const seed = execFileSync('mtype', ['-i', `${disk}@@${2048 * 512}`, '::/fleet-seed.json'], {
        encoding: 'utf8',
        env: mtools,
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      expect(JSON.parse(seed)).toEqual({ seedUrl: files.url('/seed'), node: 'node-7', nodeUuid: UUID, installCode: rig.code });
      // Past the ESP (which now holds the seed) the disk holds the image byte for byte.
      expect(sha(await diskBytes(ESP_END, IMAGE_BYTES))).toBe(sha(raw.subarray(ESP_END)));
    }
    expect(rig.lines.join('\n')).not.toContain(rig.code);
  });

  it.each([['/image.raw.gz'], ['/image.raw.xz']])('unpacks %s by its magic bytes (behind a redirect)', async (path) => {
    await wipedInNewBoot();
    files.redirects.set(`/latest${path}`, path);
    const r = await rig.perform('image-to-disk', imageToDisk, env('alpine-image', path, { IMAGE_URL: files.url(`/latest${path}`) }));
    expect(r.code, r.lines.join('\n')).toBe(0);
    expect(sha(await diskBytes(ESP_END, IMAGE_BYTES))).toBe(sha(raw.subarray(ESP_END)));
  });

  it('cloud-init-nocloud: the seed fetched with the install code, in var/lib/cloud/seed/nocloud on the ext4 root; twice', async () => {
    await wipedInNewBoot();
    for (let run = 0; run < 2; run++) {
      const from = files.requests.length;
      const r = await rig.perform('image-to-disk', imageToDisk, env('cloud-init-nocloud', '/image.raw.zst'));
      expect(r.code, r.lines.join('\n')).toBe(0);
      // The seed once, after the image (fleetd serves it once: a refused image must not spend it).
      expect(getsSince(from)).toEqual(['/image.raw.zst', seedPath()]);
      expect(r.lines.at(-1)).toBe(said(IMAGE_LINES.nocloudSeedPut('meta-data, user-data', '2')));
      const root = `${disk}?offset=${ESP_END}`;
      const cat = (f: string) =>
        execFileSync('debugfs', ['-R', `cat /var/lib/cloud/seed/nocloud/${f}`, root], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
      expect(cat('user-data')).toBe('#cloud-config\nhostname: node-7\n');
      expect(cat('meta-data')).toBe('instance-id: node-7\n');
      const stat = execFileSync('debugfs', ['-R', 'stat /var/lib/cloud/seed/nocloud/user-data', root], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      expect(stat).toMatch(/Mode:\s+0600/);
      expect(stat).toMatch(/User:\s+0\s+Group:\s+0/);
      execFileSync('e2fsck', ['-n', '-f', root], { stdio: 'ignore' });
    }
    expect(rig.lines.join('\n')).not.toContain(rig.code);
  });
});

describe('image-to-disk fails on a packed image that is broken or too large', () => {
  beforeAll(wipedInNewBoot);

  it("a truncated xz image: the decompressor's error", async () => {
    const cut = files.served.get('/image.raw.xz')!.subarray(0, 100_000);
    files.served.set('/cut.raw.xz', cut);
    const r = await rig.perform('image-to-disk', imageToDisk, env('alpine-image', '/cut.raw.xz'));
    expect(r.code).toBe(1);
    expect(r.lines.at(-1)).toBe(said(SHARED_LINES.failed(IMAGE_FAILURES.unpackFailed('xz', 'xz: (stdin): Unexpected end of input'))));
  });

  it.each([
    ['zst', ['zstd', '-c', '-q']],
    ['gz', ['gzip', '-c', '-1']],
  ])('a .%s image larger than the disk: stops where the disk ends, and leaves no decompressor running', async (ext, cmd) => {
    files.served.set(`/big.raw.${ext}`, execFileSync(cmd[0]!, cmd.slice(1), { input: Buffer.alloc(80 * MIB), maxBuffer: 64 * MIB }));
    const r = await rig.perform('image-to-disk', imageToDisk, env('alpine-image', `/big.raw.${ext}`));
    expect(r.code).toBe(1);
    expect(r.lines.at(-1)).toBe(said(SHARED_LINES.failed(IMAGE_FAILURES.pastDisk(disk, String(64 * MIB)))));
    await new Promise((ok) => setTimeout(ok, 200));
    expect(execFileSync('ps', ['--ppid', String(process.pid), '-o', 'comm='], { encoding: 'utf8' })).not.toMatch(/zstd/);
  });

  it('cloud-init-nocloud: a write that fails after the seed was fetched says the seed is spent, and what to do', async () => {
    files.served.set('/big.raw.zst', execFileSync('zstd', ['-c', '-q'], { input: Buffer.alloc(80 * MIB), maxBuffer: 64 * MIB }));
    const from = files.requests.length;
    const r = await rig.perform('image-to-disk', imageToDisk, env('cloud-init-nocloud', '/big.raw.zst'));
    expect(r.code).toBe(1);
    expect(r.lines.slice(-2)).toEqual([said(SHARED_LINES.failed(IMAGE_FAILURES.pastDisk(disk, String(64 * MIB)))), spent]);
    expect(getsSince(from)).toEqual(['/big.raw.zst', seedPath()]);
  });

  it('cloud-init-nocloud: an image with two root partitions, found once it is written: the seed is spent', async () => {
    const two = join(rig.dir, 'two-roots.raw');
    await writeFile(two, raw);
    execFileSync('sgdisk', ['-t', '1:8304', two], { stdio: 'ignore' });
    const twoRoots = await readFile(two);
    files.served.set('/two-roots.raw', twoRoots);
    const from = files.requests.length;
    const r = await rig.perform('image-to-disk', imageToDisk, env('cloud-init-nocloud', '/two-roots.raw'));
    expect(r.code).toBe(1);
    expect(r.lines.at(-3)).toBe(said(IMAGE_LINES.wrote(String(twoRoots.length), disk, sha(twoRoots))));
    expect(r.lines.slice(-2)).toEqual([said(SHARED_LINES.failed(IMAGE_FAILURES.rootCount('2'))), spent]);
    expect(getsSince(from)).toEqual(['/two-roots.raw', seedPath()]);
  });

  it('nixos-image: the same failure spends no seed (its first boot fetches it), so no such line', async () => {
    const r = await rig.perform('image-to-disk', imageToDisk, env('nixos-image', '/big.raw.zst'));
    expect(r.code).toBe(1);
    expect(r.lines.at(-1)).toBe(said(SHARED_LINES.failed(IMAGE_FAILURES.pastDisk(disk, String(64 * MIB)))));
    expect(r.lines).not.toContain(spent);
  });
});

describe('image-to-disk refuses before its first write', () => {
  beforeAll(wipedInNewBoot);

  async function refused(e: Record<string, string>, line: string, meminfo?: string): Promise<void> {
    if (meminfo) await writeFile(join(rig.proc, 'meminfo'), meminfo);
    const before = sha256sum(disk);
    const r = await rig.perform('image-to-disk', imageToDisk, e);
    expect(r.lines.at(-1)).toBe(line);
    expect(r.code).toBe(1);
    expect(sha256sum(disk)).toBe(before);
  }

  it('an image whose sha256 is not the declared one', async () => {
    const wrong = 'ab'.repeat(32);
    await refused(env('nixos-image', '/image.raw', { IMAGE_SHA256: wrong }), said(IMAGE_LINES.sha256Differs(sha(raw), wrong)));
  });

  it('an image larger than the RAM it may use, one that does not answer, one larger than the disk', async () => {
    await refused(
      env('nixos-image', '/image.raw'),
      said(IMAGE_LINES.tooBigForRam(DOWNLOAD_OF.image(files.url('/image.raw')), '10')),
      'MemAvailable:    1058816 kB\n',
    );
    await writeFile(join(rig.proc, 'meminfo'), 'MemAvailable:   20000000 kB\n');
    await refused(
      env('nixos-image', '/gone.raw', { IMAGE_SHA256: 'ab'.repeat(32) }),
      said(IMAGE_LINES.cannotFetch(DOWNLOAD_OF.image(files.url('/gone.raw')), WHY.http('404'))),
    );
    files.served.set('/huge.raw', Buffer.alloc(65 * MIB));
    await refused(env('nixos-image', '/huge.raw'), said(IMAGE_LINES.largerThanDisk(String(65 * MIB), disk, String(64 * MIB))));
    files.served.delete('/huge.raw');
  });

  it('cloud-init-nocloud: an image whose sha256 is wrong, or that is larger than the disk, leaves the seed unfetched', async () => {
    const from = files.requests.length;
    const wrong = 'ab'.repeat(32);
    await refused(env('cloud-init-nocloud', '/image.raw', { IMAGE_SHA256: wrong }), said(IMAGE_LINES.sha256Differs(sha(raw), wrong)));
    files.served.set('/huge.raw', Buffer.alloc(65 * MIB));
    await refused(env('cloud-init-nocloud', '/huge.raw'), said(IMAGE_LINES.largerThanDisk(String(65 * MIB), disk, String(64 * MIB))));
    files.served.delete('/huge.raw');
    expect(getsSince(from)).toEqual(['/image.raw', '/huge.raw']);
    expect(files.requests.slice(from).map((q) => q.path)).not.toContain(seedPath());
  });

  it('a NoCloud seed that does not answer, or holds a link', async () => {
    await refused(
      env('cloud-init-nocloud', '/image.raw', { SEED_URL: files.url('/nowhere') }),
      said(IMAGE_LINES.cannotFetch(DOWNLOAD_OF.seed(files.url('/nowhere')), WHY.http('404'))),
    );
    const seed = join(rig.dir, 'bad-seed');
    await mkdir(seed);
    execFileSync('ln', ['-s', '/etc/shadow', join(seed, 'user-data')]);
    files.served.set(`/bad/${rig.code}`, execFileSync('tar', ['-c', '-C', seed, 'user-data']));
    await refused(env('cloud-init-nocloud', '/image.raw', { SEED_URL: files.url('/bad') }), said(IMAGE_LINES.seedNotFile('user-data')));
  });

  it('a payload that is no disk image, a malformed digest, no node UUID', async () => {
    await refused(env('talos', '/image.raw'), said(IMAGE_LINES.notDiskImage('talos')));
    await refused(env('nixos-image', '/image.raw', { IMAGE_SHA256: 'abc' }), said(IMAGE_LINES.badSha256()));
    await writeFile(join(rig.sys, 'class/dmi/id/product_uuid'), '');
    await refused(env('nixos-image', '/image.raw'), said(IMAGE_LINES.noNodeUuid(join(rig.sys, 'class/dmi/id/product_uuid'))));
    await setProductUuid(rig.sys, UUID);
  });

  it('a run resumed in a new boot after wipe-disk', async () => {
    await rig.setBootId(randomUUID());
    await refused(env('nixos-image', '/image.raw'), said(SHARED_LINES.resumed(NOTHING['image-to-disk'])));
  });
});

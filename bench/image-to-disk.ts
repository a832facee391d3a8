/**
 * image-to-disk against the same work done by the standard tools: the whole action (download into
 * RAM over HTTP, sha256 before the first write, write, fsync, read back and hash again,
 * fleet-seed.json on the ESP) on a 1 GiB image to a loop device, against `sha256sum <file>` +
 * `dd if=<file> of=<loop> bs=4M oflag=direct conv=fsync` + `dd if=<loop> iflag=direct` of the
 * written range into `sha256sum`. Both write and read through to the loop's backing file (direct
 * I/O on), so neither is served by the page cache. The figure is the ratio of throughputs
 * (baseline time / action time), the median of alternating rounds.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { imageToDisk } from '../images/tink-reprovision-tools/image/image-to-disk.js';
import { writeWipedRecord } from '../images/tink-reprovision-tools/lib/fleet-dir.js';
import { setProductUuid } from '../test/actions/fake-sysfs.js';
import { Loops, mirrorLoop, sparseFile } from '../test/actions/loop.js';
import { Rig } from '../test/actions/rig.js';
import type { Figure, Suite } from './run.js';

const MIB = 1 << 20;
const IMAGE_BYTES = 1024 * MIB;
const ROUNDS = 3;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** A GPT disk image with an ESP (FAT, the loader) and a root partition full of a repeated random 4 MiB block. */
async function makeImage(path: string): Promise<void> {
  await sparseFile(path, IMAGE_BYTES);
  const sh = (cmd: string, ...args: string[]) => execFileSync(cmd, args, { stdio: 'ignore', env: { ...process.env, MTOOLS_SKIP_CHECK: '1' } });
  sh('sgdisk', '-n', '1:2048:+16M', '-t', '1:EF00', '-n', '2:0:0', '-t', '2:8304', path);
  sh('mkfs.vfat', '-F', '16', '--offset', '2048', '-n', 'ESP', path, String(16 * 1024));
  sh('mmd', '-i', `${path}@@${2048 * 512}`, '::/EFI', '::/EFI/BOOT');
  sh('mcopy', '-i', `${path}@@${2048 * 512}`, '/etc/hostname', '::/EFI/BOOT/BOOTX64.EFI');
  const block = randomBytes(4 * MIB);
  const fh = await open(path, 'r+');
  // From 20 MiB to 1 MiB before the end (the backup GPT stays): real content, no holes.
  for (let at = 20 * MIB; at + block.length <= IMAGE_BYTES - MIB; at += block.length) await fh.write(block, 0, block.length, at);
  await fh.close();
}

/** A static file server in its own process, as the image's server is another machine. */
async function serve(path: string): Promise<{ url: string; child: ChildProcess }> {
  const code = `
    const http = require('node:http'); const fs = require('node:fs');
    const size = fs.statSync(process.argv[1]).size;
    const s = http.createServer((q, r) => { r.writeHead(200, { 'content-length': size }); fs.createReadStream(process.argv[1], { highWaterMark: 1 << 20 }).pipe(r); });
    s.listen(0, '127.0.0.1', () => console.log(s.address().port));`;
  const child = spawn(process.execPath, ['-e', code, path], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = (await createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next()).value as string;
  return { url: `http://127.0.0.1:${port.trim()}/image.raw`, child };
}

async function sha256OfFile(path: string): Promise<string> {
  const { createHash } = await import('node:crypto');
  const h = createHash('sha256');
  for await (const c of createReadStream(path, { highWaterMark: 8 * MIB })) h.update(c as Buffer);
  return h.digest('hex');
}

export const suite: Suite = {
  title: 'image-to-disk: 1 GiB image to a loop device, against sha256sum + dd oflag=direct + read-back sha256sum',
  async run(): Promise<Figure[]> {
    const rig = await Rig.create();
    rig.allowLoop = true;
    const loops = new Loops();
    let server: ChildProcess | undefined;
    try {
      const image = join(rig.dir, 'image.raw');
      await makeImage(image);
      const diskFile = join(rig.dir, 'disk.img');
      await sparseFile(diskFile, IMAGE_BYTES + 64 * MIB);
      const disk = loops.attach(diskFile, { directIo: true });
      await mirrorLoop(rig.sys, disk, 'BENCH-DISK');
      await setProductUuid(rig.sys, '4c4c4544-0050-3310-8033-b4c04f4d4e31');
      await rig.attest();
      await writeWipedRecord(rig.io(), { bootId: rig.bootId, disk, serial: 'BENCH-DISK', at: new Date().toISOString() });
      const served = await serve(image);
      server = served.child;
      const env = {
        OS: 'nixos-image',
        INSTALL_DISK: disk,
        IMAGE_URL: served.url,
        IMAGE_SHA256: await sha256OfFile(image),
        SEED_URL: 'https://fleet.example/seed',
        NODE: 'bench',
      };

      const bytes = statSync(image).size;
      const action: number[] = [];
      const baseline: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        let t = performance.now();
        const r = await rig.perform('image-to-disk', imageToDisk, env);
        if (r.code !== 0) throw new Error(`image-to-disk failed:\n${r.lines.join('\n')}`);
        action.push(performance.now() - t);
        t = performance.now();
        const sum = execFileSync('sha256sum', [image], { encoding: 'utf8' }).split(' ')[0];
        execFileSync('dd', [`if=${image}`, `of=${disk}`, 'bs=4M', 'oflag=direct', 'conv=fsync'], { stdio: 'ignore' });
        const back = execFileSync('sh', ['-c', 'dd if="$1" bs=4M count="$2" iflag=direct,count_bytes status=none | sha256sum', 'sh', disk, String(bytes)], {
          encoding: 'utf8',
        }).split(' ')[0];
        baseline.push(performance.now() - t);
        if (back !== sum) throw new Error(`the baseline read back sha256 ${back}, not the image's ${sum}`);
      }
      const mbps = (ms: number) => bytes / 1e6 / (ms / 1000);
      const a = median(action);
      const b = median(baseline);
      return [
        {
          name: 'image_to_disk_ratio',
          value: b / a,
          unit: 'x',
          goal: '≥ 0.9',
          note: `throughput of image-to-disk / the same work by sha256sum and dd; median of ${ROUNDS} rounds`,
        },
        { name: 'image_to_disk_mb_per_s', value: mbps(a), unit: 'MB/s', note: 'download into RAM, check, write, fsync, read back, seed' },
        {
          name: 'sha256sum_dd_readback_mb_per_s',
          value: mbps(b),
          unit: 'MB/s',
          note: 'sha256sum <file> + dd bs=4M oflag=direct conv=fsync + dd iflag=direct | sha256sum',
        },
      ];
    } finally {
      server?.kill();
      loops.detachAll();
      await rig.cleanup();
    }
  },
};

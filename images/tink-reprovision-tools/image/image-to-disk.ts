import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isDiskImagePayload } from '../../../shared/payloads.js';
import { mtoolsImage, theEsp } from '../disk/esp.js';
import { confirmWipedDisk } from '../disk/locate.js';
import { byteOffset, readGpt } from '../disk/read-gpt.js';
import type { Action } from '../lib/action.js';
import { readInstallCode } from '../lib/fleet-dir.js';
import { Advised, Refusal } from '../lib/refusal.js';
import { DOWNLOAD_OF, IMAGE_FAILURES, IMAGE_LINES } from '../lines/image.js';
import { NOTHING, SHARED_LINES } from '../lines/shared.js';
import { decompressed } from './decompress.js';
import { download, type Downloaded } from './download.js';
import { placeFleetSeed, readNodeUuid, type FleetSeed } from './fleet-seed.js';
import { imageFormat, type ImageFormat } from './format.js';
import { fetchNocloudSeed, writeNocloudSeed } from './nocloud.js';
import { mib, ramCap } from './ram.js';
import { chooseRoot, ext4Partitions } from './root.js';
import { declaredSha256 } from './sha256.js';
import { flushDisk, hashFromDisk, writeToDisk } from './write.js';

/**
 * image-to-disk: the class's disk image, downloaded into RAM and checked against IMAGE_SHA256
 * before the first write, unpacked by its magic bytes onto the disk wipe-disk wiped in this boot,
 * flushed, read back and hashed again; then the node's seed on it. Everything that can refuse
 * comes before the first write. The NoCloud seed is fetched last of all before it, once the image
 * passed its checks: fleetd serves a seed once, so an image that is refused leaves it unspent,
 * and a failure after the fetch ends in the seed-spent line, the runbook's fix (a run that starts
 * this action again cannot fetch the seed). Running it again writes the same again (a NoCloud seed
 * only while fleetd still holds it).
 */
export const imageToDisk: Action<'image-to-disk'> = async (env, io, say) => {
  const os = env.OS;
  if (!isDiskImagePayload(os)) throw new Refusal(IMAGE_LINES.notDiskImage(os));
  const path = env.INSTALL_DISK;
  if (!path) throw new Refusal(SHARED_LINES.noInstallDisk());
  if (!env.IMAGE_URL) throw new Refusal(IMAGE_LINES.noImageUrl());
  const expected = declaredSha256(env.IMAGE_SHA256);
  if (!expected) throw new Refusal(IMAGE_LINES.badSha256());
  if (!env.SEED_URL) throw new Refusal(IMAGE_LINES.noSeedUrl());
  const disk = await confirmWipedDisk(io, path, NOTHING['image-to-disk']);
  const code = await readInstallCode(io);
  if (!code) throw new Refusal(SHARED_LINES.noInstallCode());

  const dir = await mkdtemp(join(io.tmpDir, 'image-to-disk-'));
  try {
    const nocloud = os === 'cloud-init-nocloud';
    const fleetSeed: FleetSeed | null = nocloud ? null : { seedUrl: env.SEED_URL, node: env.NODE, nodeUuid: await readNodeUuid(io), installCode: code };

    const image = await download(env.IMAGE_URL, DOWNLOAD_OF.image(env.IMAGE_URL), await ramCap(io.procRoot), say);
    if (image.sha256 !== expected) throw new Refusal(IMAGE_LINES.sha256Differs(image.sha256, expected));
    const format = imageFormat(image.chunks);
    say(IMAGE_LINES.downloaded(mib(image.size), format, expected));
    if (format === 'raw' && image.size > disk.sizeBytes) {
      throw new Refusal(IMAGE_LINES.largerThanDisk(String(image.size), path, String(disk.sizeBytes)));
    }
    // Last before the first write: from here a failure leaves the seed spent.
    const seedFiles = nocloud ? await fetchNocloudSeed(io, env.SEED_URL, code, dir, say) : [];

    try {
      await writeImage(path, image, format, disk.sizeBytes, say);
      const gpt = await readGpt(path);
      if (fleetSeed) {
        const esp = theEsp(gpt, path);
        await placeFleetSeed(io, mtoolsImage(path, gpt!, esp), fleetSeed, dir);
        say(IMAGE_LINES.fleetSeedPut(String(esp.index)));
      } else {
        if (!gpt) throw new Error(IMAGE_FAILURES.imageNoGpt(path));
        const root = chooseRoot(gpt.partitions, await ext4Partitions(path, gpt));
        if (typeof root === 'string') throw new Error(root);
        await writeNocloudSeed(io, `${path}?offset=${byteOffset(gpt, root)}`, seedFiles, dir);
        say(IMAGE_LINES.nocloudSeedPut(seedFiles.join(', '), String(root.index)));
      }
      await flushDisk(path);
    } catch (err) {
      throw nocloud ? new Advised(err, IMAGE_LINES.seedSpent()) : err;
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

/** Writes the checked image to the disk, then reads it back: the sha256 of what was written, from the device. */
async function writeImage(path: string, image: Downloaded, format: ImageFormat, limit: number, say: (text: string) => void): Promise<void> {
  // A raw image is written as downloaded: its sha256 is the one just checked.
  const written = await writeToDisk(path, decompressed(format, image.chunks), limit, { hash: format !== 'raw' });
  const sha256 = written.sha256 ?? image.sha256;
  image.chunks.length = 0; // the RAM goes back before the read-back
  const back = await hashFromDisk(path, written.bytes);
  if (back !== sha256) throw new Error(IMAGE_FAILURES.readsBackOther(path, back, String(written.bytes), sha256));
  say(IMAGE_LINES.wrote(String(written.bytes), path, back));
}

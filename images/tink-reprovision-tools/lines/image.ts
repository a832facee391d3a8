/** Every line image-to-disk prints (after `image-to-disk: `); lines/disk.ts and lines/shared.ts hold the ones it shares. */
import { DISK_IMAGE_PAYLOADS } from '../../../shared/payloads.js';
import { said } from '../../../shared/text/line-def.js';
import { FLEET_SEED_FILE, NOCLOUD_DIR } from '../image/seed-places.js';
import { CODE_BLANK, NOTHING } from './shared.js';

const NONE = NOTHING['image-to-disk'];

export const IMAGE_LINES = {
  notDiskImage: said({
    when: 'refuses: OS names no disk-image payload',
    args: ['OS'],
    text: (os) => `OS is "${os}", not a disk-image payload (${DISK_IMAGE_PAYLOADS.join(', ')})`,
  }),
  noImageUrl: said({ when: 'refuses: IMAGE_URL is empty', args: [], text: () => 'no image URL is declared' }),
  badSha256: said({ when: 'refuses: IMAGE_SHA256 is not 64 hex digits', args: [], text: () => 'IMAGE_SHA256 is not 64 hex digits' }),
  noSeedUrl: said({ when: 'refuses: SEED_URL is empty', args: [], text: () => 'no seed URL is given' }),
  noNodeUuid: said({
    when: "refuses (nixos-image, alpine-image): the firmware reports no SMBIOS system UUID, which the node's seed is asked with",
    args: ['path'],
    text: (path) => `no node UUID in ${path}; ${NONE}`,
  }),
  cannotFetch: said({
    when: 'refuses: the image, or the NoCloud seed, cannot be downloaded',
    args: ['what', 'why'],
    text: (what, why) => `${what} cannot be fetched (${why}); ${NONE}`,
  }),
  tooBigForRam: said({
    when: 'refuses: the download would not fit in the RAM HookOS can spare (MemAvailable less 1 GiB)',
    args: ['what', 'MiB'],
    text: (what, mib) => `${what} is larger than the ${mib} MiB of RAM it may use; ${NONE}`,
  }),
  progress: said({ when: 'at every tenth of a download of known length', args: ['MiB', 'total MiB'], text: (n, total) => `downloaded ${n} of ${total} MiB` }),
  progressUnknown: said({ when: 'at every 256 MiB of a download of unknown length', args: ['MiB'], text: (n) => `downloaded ${n} MiB` }),
  sha256Differs: said({
    when: 'refuses: the downloaded image is not the one IMAGE_SHA256 declares',
    args: ['its sha256', 'IMAGE_SHA256'],
    text: (got, declared) => `the image's sha256 is ${got}, not IMAGE_SHA256 ${declared}; ${NONE}`,
  }),
  downloaded: said({
    when: 'the image is downloaded and is the declared one; its format (raw, gzip, xz, zstd) told by its first bytes',
    args: ['MiB', 'format', 'sha256'],
    text: (mib, format, sha256) => `downloaded ${mib} MiB (${format}), sha256 ${sha256} as declared`,
  }),
  largerThanDisk: said({
    when: 'refuses: a raw image is larger than the disk',
    args: ['bytes', 'INSTALL_DISK', 'disk bytes'],
    text: (bytes, disk, diskBytes) => `the image (${bytes} bytes) is larger than ${disk} (${diskBytes} bytes); ${NONE}`,
  }),
  seedNoTar: said({
    when: 'refuses (cloud-init-nocloud): the seed is no tar',
    args: ['what', "tar's last line"],
    text: (what, why) => `${what} is no tar (${why}); ${NONE}`,
  }),
  seedEmpty: said({ when: 'refuses (cloud-init-nocloud): the seed holds no file', args: ['what'], text: (what) => `${what} holds no file; ${NONE}` }),
  seedBadName: said({
    when: 'refuses (cloud-init-nocloud): the seed holds a name debugfs would not take unquoted, or one that leaves its directory',
    args: ['name'],
    text: (name) => `the seed holds ${JSON.stringify(name)}, a name fleet does not copy; ${NONE}`,
  }),
  seedNotFile: said({
    when: 'refuses (cloud-init-nocloud): the seed holds a link or a device',
    args: ['name'],
    text: (name) => `the seed holds ${name}, which is neither a file nor a directory; ${NONE}`,
  }),
  wrote: said({
    when: 'the image is on the disk, and reads back from it as written',
    args: ['bytes', 'INSTALL_DISK', 'sha256'],
    text: (bytes, disk, sha256) => `wrote ${bytes} bytes to ${disk}; they read back with the sha256 they were written with, ${sha256}`,
  }),
  fleetSeedPut: said({
    when: "the seed's address is on the ESP (nixos-image, alpine-image)",
    args: ['partition'],
    text: (partition) => `put ${FLEET_SEED_FILE} on the EFI system partition (partition ${partition})`,
  }),
  nocloudSeedPut: said({
    when: "the seed's files are on the root filesystem (cloud-init-nocloud)",
    args: ['files', 'partition'],
    text: (files, partition) => `put the seed (${files}) in /${NOCLOUD_DIR} on the root partition (partition ${partition})`,
  }),
  seedSpent: said({
    when: 'the line after any failure once the seed was fetched (cloud-init-nocloud)',
    args: [],
    text: () =>
      'the seed was fetched before this failure, and fleetd serves a seed once: set desired_action to provision, so that a new run gets a new code and a new seed',
  }),
};

/** image-to-disk's failures: each printed as `failed: <message>` (SHARED_LINES.failed). */
export const IMAGE_FAILURES = {
  pastDisk: said({
    when: 'a packed image unpacks to more than the disk holds',
    args: ['INSTALL_DISK', 'disk bytes'],
    text: (disk, bytes) => `the image is larger than ${disk} (${bytes} bytes)`,
  }),
  unpackFailed: said({ when: 'xz or zstd could not unpack the image', args: ['format', 'why'], text: (format, why) => `${format} -d: ${why}` }),
  noByteWritten: said({ when: 'the disk took no byte of a write', args: ['offset'], text: (at) => `no byte written at ${at}` }),
  endedEarly: said({
    when: 'the disk reads back shorter than what was written',
    args: ['INSTALL_DISK', 'bytes', 'written'],
    text: (disk, at, written) => `${disk} ended at ${at} bytes, before the ${written} written`,
  }),
  readsBackOther: said({
    when: 'the disk reads back other bytes than were written',
    args: ['INSTALL_DISK', 'sha256 read', 'bytes', 'sha256 written'],
    text: (disk, back, bytes, written) => `${disk} reads back sha256 ${back}, but the ${bytes} bytes written hash to ${written}`,
  }),
  noMemAvailable: said({ when: '/proc/meminfo has no MemAvailable', args: ['path'], text: (path) => `${path} has no MemAvailable` }),
  mcopyFailed: said({
    when: `mcopy could not put ${FLEET_SEED_FILE} on the ESP`,
    args: ["mcopy's last line"],
    text: (why) => `mcopy ${FLEET_SEED_FILE}: ${why}`,
  }),
  fleetSeedNotBack: said({
    when: `${FLEET_SEED_FILE} reads back from the ESP other than written`,
    args: [],
    text: () => `${FLEET_SEED_FILE} does not read back from the ESP as written`,
  }),
  imageNoGpt: said({
    when: 'the written image has no GPT (cloud-init-nocloud)',
    args: ['INSTALL_DISK'],
    text: (disk) => `the image on ${disk} has no GPT`,
  }),
  rootCount: said({
    when: 'the image has no single root partition, the one typed Linux root x86-64 or else the one ext4 Linux filesystem (cloud-init-nocloud)',
    args: ['count'],
    text: (n) => `the image has ${n} root partitions, not one`,
  }),
  rootNotExt4: said({
    when: "the image's root partition holds no ext4 (cloud-init-nocloud)",
    args: ['partition'],
    text: (partition) => `the image's root partition ${partition} is not ext4`,
  }),
  debugfsWriteFailed: said({
    when: 'debugfs could not write the seed (cloud-init-nocloud)',
    args: ["debugfs's last line"],
    text: (why) => `debugfs -w: ${why}`,
  }),
  debugfsReadFailed: said({
    when: 'debugfs could not read the seed back (cloud-init-nocloud)',
    args: ["debugfs's last line"],
    text: (why) => `debugfs: ${why}`,
  }),
  nocloudNotBack: said({
    when: 'a seed file reads back from the root filesystem other than written (cloud-init-nocloud)',
    args: ['file'],
    text: (file) => `${NOCLOUD_DIR}/${file} does not read back from the root filesystem as written`,
  }),
};

/** What a download names: the `<what>` in its lines. */
export const DOWNLOAD_OF = {
  image: said({ when: 'the disk image', args: ['IMAGE_URL'], text: (url) => `the image ${url}` }),
  seed: said({
    when: "the node's seed, asked with the install code (cloud-init-nocloud)",
    args: ['SEED_URL'],
    text: (url) => `the seed at ${url}/${CODE_BLANK}`,
  }),
};

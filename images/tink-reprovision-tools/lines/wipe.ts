/** Every line wipe-disk prints (after `wipe: `); lines/disk.ts and lines/shared.ts hold the ones it shares. */
import { PAYLOADS } from '../../../shared/payloads.js';
import { said } from '../../../shared/text/line-def.js';
import { NOTHING } from './shared.js';

const NONE = NOTHING['wipe-disk'];

export const WIPE_LINES = {
  skipped: said({ when: 'WIPE is not true: it does nothing (exit 0)', args: ['WIPE'], text: (v) => `WIPE is "${v}", not true: ${NONE}` }),
  noSerial: said({ when: 'refuses: INSTALL_DISK_SERIAL is empty', args: [], text: () => 'no install disk serial is declared' }),
  noPayload: said({
    when: 'refuses: the run installs (INSTALL true) but OS names no payload',
    args: ['OS'],
    text: (os) => `the run installs (INSTALL is true) but names no payload: OS is ${os}, not one of ${PAYLOADS.join(', ')}; ${NONE}`,
  }),
  talosLacks: said({
    when: 'refuses: a Talos run lacks what install needs, so it could not install after the wipe',
    args: ['what it lacks'],
    text: (lacks) => `the run installs Talos, but gives install ${lacks}; ${NONE}`,
  }),
  imageLacks: said({
    when: 'refuses: a disk-image run lacks what image-to-disk needs, so it could not install after the wipe',
    args: ['OS', 'what it lacks'],
    text: (os, lacks) => `the run installs ${os}, but gives image-to-disk ${lacks}; ${NONE}`,
  }),
  notAttested: said({
    when: "refuses: the agent's attestation marker is missing, or names another boot",
    args: [],
    text: () => 'this boot did not pass attestation',
  }),
  notPartition: said({
    when: "refuses: a partition's /dev node is not that partition (its device number differs)",
    args: ['node', 'partition', 'major:minor', 'disk'],
    text: (node, partition, dev, disk) => `${node} is not partition ${partition} (${dev}) of ${disk}; ${NONE}`,
  }),
  reportsSerial: said({
    when: 'the declared disk is the one that reports the serial',
    args: ['INSTALL_DISK', 'serial'],
    text: (disk, serial) => `${disk} reports the serial ${serial}`,
  }),
  cannotPull: said({
    when: 'refuses: the Talos installer image cannot be pulled',
    args: ['image', "docker's last line"],
    text: (image, why) => `the installer image ${image} cannot be pulled (${why}); ${NONE}`,
  }),
  pulled: said({ when: "the Talos installer image is in this boot's image cache", args: ['image'], text: (image) => `pulled the installer image ${image}` }),
  imageUnreachable: said({
    when: "refuses: the disk image's URL does not answer with it (HEAD, or the first byte)",
    args: ['IMAGE_URL', 'why'],
    text: (url, why) => `the image ${url} cannot be fetched (${why}); ${NONE}`,
  }),
  imageAnswers: said({ when: "the disk image's URL answers", args: ['IMAGE_URL'], text: (url) => `the image ${url} answers` }),
  seedSilent: said({
    when: 'refuses: the seed service does not answer at SEED_URL (no connection, a stall, or a 5xx); it is never asked for the seed itself',
    args: ['SEED_URL', 'why'],
    text: (url, why) => `the seed service ${url} does not answer (${why}); ${NONE}`,
  }),
  seedAnswers: said({ when: 'the seed service answers (any status below 500)', args: ['SEED_URL'], text: (url) => `the seed service ${url} answers` }),
  toolSays: said({ when: 'each line wipefs or blkdiscard prints', args: ['its line'], text: (line) => line }),
  noDiscard: said({
    when: 'the disk takes no discard',
    args: ['INSTALL_DISK'],
    text: (disk) => `${disk} takes no discard; its blocks stay until they are overwritten`,
  }),
  zeroed: said({
    when: 'both GPT copies are zeroed',
    args: ['INSTALL_DISK'],
    text: (disk) => `zeroed the first and last MiB of ${disk} (both GPT copies)`,
  }),
  keptPartitions: said({
    when: "the kernel did not drop the disk's old partitions (blockdev --rereadpt failed)",
    args: ['INSTALL_DISK', 'why'],
    text: (disk, why) => `the kernel kept the old partitions of ${disk} (${why})`,
  }),
  wiped: said({
    when: 'the disk is wiped, and the wipe record names this boot',
    args: ['INSTALL_DISK', 'boot id'],
    text: (disk, boot) => `wiped ${disk} in boot ${boot}`,
  }),
};

/** wipe-disk's failures: each printed as `failed: <message>` (SHARED_LINES.failed). */
export const WIPE_FAILURES = {
  toolFailed: said({ when: 'wipefs or blkdiscard exited non-zero', args: ['command', 'exit code'], text: (cmd, code) => `${cmd} exited ${code}` }),
};

/** How the no-payload refusal shows OS: the `<OS>` in it. */
export const OS_SHOWN = {
  empty: said({ when: 'OS is empty', args: [], text: () => 'empty' }),
  named: said({ when: 'OS names something else', args: ['OS'], text: (os) => `"${os}"` }),
};

/** A variable a run needs to install after the wipe, as the action that reads it would miss it. */
export const LACKS = {
  INSTALLER_IMAGE: 'no installer image',
  CONFIG_URL: 'no config URL',
  IMAGE_URL: 'no image URL',
  IMAGE_SHA256: 'no sha256 of 64 hex digits',
  SEED_URL: 'no seed URL',
} as const;
export type Lacking = keyof typeof LACKS;

/** The `<what it lacks>`: each lack with its variable, in the order the action checks, "a, b and c". */
export function lackList(lacks: readonly Lacking[]): string {
  const each = lacks.map((l) => `${LACKS[l]} (${l})`);
  return each.length === 1 ? each[0]! : `${each.slice(0, -1).join(', ')} and ${each.at(-1)}`;
}

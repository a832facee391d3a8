import { isDiskImagePayload } from '../../../shared/payloads.js';
import { declaredSha256 } from '../image/sha256.js';
import type { ActionEnv } from '../lib/env.js';
import { lackList, OS_SHOWN, WIPE_LINES, type Lacking } from '../lines/wipe.js';

/** What wipe-disk reads of the run to know that an install can follow the wipe. */
export type RunEnv = Pick<ActionEnv<'wipe-disk'>, 'INSTALL' | 'OS' | 'INSTALLER_IMAGE' | 'CONFIG_URL' | 'IMAGE_URL' | 'IMAGE_SHA256' | 'SEED_URL'>;

/** A variable the run does not give (or gives malformed) that it needs to install after the wipe. */
export type Lack = 'OS' | Lacking;

/**
 * What the run lacks to install anything once wipe-disk has wiped, so that a Workflow can never
 * wipe a disk and install nothing. A run whose INSTALL is not "true" (a retirement) wipes only and
 * lacks nothing. One that installs lacks OS when OS names no payload; for talos, what install
 * refuses without (INSTALLER_IMAGE, CONFIG_URL); for a disk image, what image-to-disk refuses
 * without (IMAGE_URL, IMAGE_SHA256 as 64 hex digits, SEED_URL). In the order those actions check.
 */
export function runLacks(run: RunEnv): Lack[] {
  if (run.INSTALL !== 'true') return [];
  const given: Array<[Lack, boolean]> =
    run.OS === 'talos'
      ? [
          ['INSTALLER_IMAGE', run.INSTALLER_IMAGE !== ''],
          ['CONFIG_URL', run.CONFIG_URL !== ''],
        ]
      : isDiskImagePayload(run.OS)
        ? [
            ['IMAGE_URL', run.IMAGE_URL !== ''],
            ['IMAGE_SHA256', declaredSha256(run.IMAGE_SHA256) !== null],
            ['SEED_URL', run.SEED_URL !== ''],
          ]
        : [['OS', false]];
  return given.filter(([, ok]) => !ok).map(([variable]) => variable);
}

/** Whether the run installs a disk image (image-to-disk follows the wipe, and fetches the seed). */
export function installsDiskImage(run: Pick<RunEnv, 'INSTALL' | 'OS'>): boolean {
  return run.INSTALL === 'true' && isDiskImagePayload(run.OS);
}

/** wipe-disk's refusal (after `wipe: `) for a run that could not install after the wipe; null when it can. */
export function lackRefusal(run: RunEnv): string | null {
  const lacks = runLacks(run);
  if (lacks.length === 0) return null;
  if (lacks.includes('OS')) return WIPE_LINES.noPayload(run.OS ? OS_SHOWN.named(run.OS) : OS_SHOWN.empty());
  const missing = lackList(lacks as Lacking[]);
  return run.OS === 'talos' ? WIPE_LINES.talosLacks(missing) : WIPE_LINES.imageLacks(run.OS, missing);
}

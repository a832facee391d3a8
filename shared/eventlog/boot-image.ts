/**
 * The images a boot ran, from PCR 4 (the boot manager's code). The quote proves PCR 4's digests
 * and their order, not the event types or data beside them, so code is told from the rest by
 * digest alone: firmware measures into PCR 4 only the images it loads (their Authenticode digest),
 * a separator, and a few fixed strings. A digest that is none of those fixed values is an image,
 * whatever its event calls itself; a digest that happens to be the hash of its event's data is
 * not excused, since an image's Authenticode digest is the hash of bytes a forger can log.
 */
import { createHash } from 'node:crypto';
import type { EventLog } from './log.js';
import { digestHex, provenBank, separatorOf } from './proven.js';
import { EV_NO_ACTION } from './types.js';

/** PCR 4: where firmware measures each boot application it loads. */
const BOOT_CODE_PCR = 4;

/** What else firmware measures into PCR 4 (PC Client PFP, EV_EFI_ACTION and EV_OMIT_BOOT_DEVICE_EVENTS). */
const FIXED_STRINGS = ['Calling EFI Application from Boot Option', 'Returning from EFI Application from Boot Option', 'BOOT ATTEMPTS OMITTED'];
const FIXED_SHA256 = new Set(FIXED_STRINGS.map((s) => createHash('sha256').update(s).digest('hex')));

/**
 * The SHA-256 digests of the images measured into PCR 4, in the order they ran: the first is what
 * the firmware launched, each later one was loaded by an image before it (or measured by code one
 * of them ran). null when the log has no SHA-256 bank.
 */
export function bootImages(log: EventLog): string[] | null {
  const bank = provenBank(log, 'sha256');
  if (bank < 0) return null;
  const images: string[] = [];
  for (let i = 0; i < log.length; i++) {
    if (log.pcrOf(i) !== BOOT_CODE_PCR || log.typeOf(i) === EV_NO_ACTION) continue;
    const hex = digestHex(log, i, bank);
    if (!hex || FIXED_SHA256.has(hex) || separatorOf(log, i, bank)) continue;
    images.push(hex);
  }
  return images;
}

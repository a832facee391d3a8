import { createHash } from 'node:crypto';
import type { EventLog } from './log.js';
import { EV_EFI_BOOT_SERVICES_APPLICATION, EV_NO_ACTION } from './types.js';

/** PCR 4: the boot manager's code, where firmware measures each boot application it loads. */
const BOOT_CODE_PCR = 4;

/**
 * What PCR 4 says of the image that booted, in the SHA-256 bank. A quote proves the digests
 * extended into PCR 4 and their order, not the event types or data beside them. So the image is
 * read from the digests alone: `last` is the last one that is not the hash of its own event's
 * data, which a separator's and an EFI action's are and an image's (its Authenticode digest) is
 * not, and no one can make an image whose digest is the hash of data they chose. It is the image
 * running now, or the kernel its stub loaded. `applications` are the digests the log calls boot
 * applications, for the audit.
 */
export interface BootImage {
  last: string | null;
  applications: string[];
}

export function bootImage(log: EventLog): BootImage {
  const bank = log.bankIndex('sha256');
  const out: BootImage = { last: null, applications: [] };
  if (bank < 0) return out;
  for (let i = 0; i < log.length; i++) {
    if (log.pcrOf(i) !== BOOT_CODE_PCR || log.typeOf(i) === EV_NO_ACTION) continue;
    const digest = log.digestOf(i, bank);
    if (!digest) continue;
    const hex = Buffer.from(digest).toString('hex');
    if (log.typeOf(i) === EV_EFI_BOOT_SERVICES_APPLICATION) out.applications.push(hex);
    if (createHash('sha256').update(log.dataOf(i)).digest('hex') !== hex) out.last = hex;
  }
  return out;
}

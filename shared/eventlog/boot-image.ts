import type { EventLog } from './log.js';
import { EV_EFI_BOOT_SERVICES_APPLICATION, EV_NO_ACTION } from './types.js';

/** PCR 4: the boot manager's code, where firmware measures each boot application it loads. */
export const BOOT_CODE_PCR = 4;

/**
 * What PCR 4 says of the image that booted, in the SHA-256 bank. A quote proves the digests
 * extended into PCR 4 and their order, not the event types beside them, so `last` is the last
 * digest extended, whatever its event claims to be: the image running now, or the kernel its
 * stub loaded. `applications` are the digests the log calls boot applications, for the audit.
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
    out.last = hex;
    if (log.typeOf(i) === EV_EFI_BOOT_SERVICES_APPLICATION) out.applications.push(hex);
  }
  return out;
}

import { BOOT_WHY } from './lines.js';

/**
 * A class's measured-boot policy: whether Secure Boot must be on, and which images may run on the
 * way to HookOS in a boot that receives an install code (their Authenticode SHA-256, as `fleet
 * hookos digest` prints it). The default records both and requires neither, so a lab that names no
 * policy boots as before.
 */
export interface BootPolicy {
  secureBoot: 'required' | 'recorded';
  /** null: any image. */
  hookosImages: readonly string[] | null;
}

export const DEFAULT_BOOT_POLICY: BootPolicy = { secureBoot: 'recorded', hookosImages: null };

/** What the quoted event log says of a boot (shared/eventlog: secureboot.ts, boot-image.ts). */
export interface MeasuredBoot {
  secureBoot: boolean | null;
  /** Why `secureBoot` is null: the log's first problem. */
  secureBootProblem: string | null;
  /** The images PCR 4 measured, in the order they ran; null when the log has no SHA-256 bank. */
  images: readonly string[] | null;
}

/**
 * Why this boot may not receive a code under its class's policy, or null. Pure. Every image the
 * boot ran must be listed, not only the first: the first is what the firmware launched, but a
 * listed loader (iPXE, fetching its script over plain HTTP) can be told to start an unlisted one,
 * and whatever runs last can extend PCR 4 with a listed digest.
 */
export function bootRefusal(policy: BootPolicy, boot: MeasuredBoot): string | null {
  if (policy.secureBoot === 'required' && boot.secureBoot !== true)
    return boot.secureBoot === false ? BOOT_WHY.secureBootOff() : BOOT_WHY.secureBootUnknown(boot.secureBootProblem ?? 'no reading');
  if (policy.hookosImages === null) return null;
  const images = boot.images ?? [];
  if (images.length === 0) return BOOT_WHY.noImage();
  const at = images.findIndex((d) => !policy.hookosImages!.includes(d));
  return at < 0 ? null : BOOT_WHY.imageNotListed(images[at]!, String(at + 1), String(images.length));
}

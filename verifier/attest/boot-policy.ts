import type { BootImage } from '../../shared/eventlog/boot-image.js';
import { BOOT_WHY } from './lines.js';

/**
 * A class's measured-boot policy: whether Secure Boot must be on, and which HookOS images may
 * receive an install code (their Authenticode SHA-256, as `fleet hookos digest` prints it). The
 * default records both and requires neither, so a lab that names no policy boots as before.
 */
export interface BootPolicy {
  secureBoot: 'required' | 'recorded';
  /** null: any image. */
  hookosImages: readonly string[] | null;
}

export const DEFAULT_BOOT_POLICY: BootPolicy = { secureBoot: 'recorded', hookosImages: null };

/** What the quoted event log says of a boot. */
export interface MeasuredBoot {
  secureBoot: boolean | null;
  image: BootImage;
}

/**
 * Why this boot may not receive a code under its class's policy, or null. Pure. The image is the
 * last image digest extended into PCR 4 (boot-image.ts), so an image that loads another after it
 * is judged by what it loaded.
 */
export function bootRefusal(policy: BootPolicy, boot: MeasuredBoot): string | null {
  if (policy.secureBoot === 'required' && boot.secureBoot !== true) return boot.secureBoot === false ? BOOT_WHY.secureBootOff() : BOOT_WHY.secureBootUnknown();
  if (policy.hookosImages === null) return null;
  if (boot.image.last === null) return BOOT_WHY.noImage();
  return policy.hookosImages.includes(boot.image.last) ? null : BOOT_WHY.imageNotListed(boot.image.last);
}

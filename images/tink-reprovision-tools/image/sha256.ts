/**
 * IMAGE_SHA256 as image-to-disk checks the image against it: 64 hex digits, lowercased; null when
 * it is anything else. wipe-disk asks the same before it wipes for a disk-image run.
 */
export function declaredSha256(value: string): string | null {
  const sha256 = value.toLowerCase();
  return /^[0-9a-f]{64}$/.test(sha256) ? sha256 : null;
}

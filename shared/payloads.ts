/**
 * What a node class installs: its `payload:` in the nodes file, which fleetd puts in a run's
 * Workflow as `os` and the Template actions read as OS. Talos goes on through its installer (the
 * provision Template's install); the others are disk images (provision-image's image-to-disk).
 */
export const PAYLOADS = ['talos', 'nixos-image', 'alpine-image', 'cloud-init-nocloud'] as const;
export type Payload = (typeof PAYLOADS)[number];

/** The payloads that are a disk image written by image-to-disk: every one but talos. */
export const DISK_IMAGE_PAYLOADS = PAYLOADS.filter((p): p is Exclude<Payload, 'talos'> => p !== 'talos');
export type DiskImagePayload = (typeof DISK_IMAGE_PAYLOADS)[number];

export function isDiskImagePayload(s: string): s is DiskImagePayload {
  return (DISK_IMAGE_PAYLOADS as readonly string[]).includes(s);
}

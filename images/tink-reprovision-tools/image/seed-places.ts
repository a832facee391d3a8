/** Where a disk image's node finds its seed on the disk image-to-disk wrote. */

/** The file a nixos-image or alpine-image node's first boot reads from its ESP to fetch its seed. */
export const FLEET_SEED_FILE = 'fleet-seed.json';

/** Where cloud-init's NoCloud datasource reads a seed from the root filesystem. */
export const NOCLOUD_DIR = 'var/lib/cloud/seed/nocloud';

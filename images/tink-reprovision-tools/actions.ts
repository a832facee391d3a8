/**
 * The Template actions the tools image carries: each runs `node /opt/fleet/<name>.mjs` and reads
 * these environment variables. The Templates (images/templates/) and the action scripts both
 * follow this list; a test holds them to it.
 */
export const ACTIONS = {
  'wipe-disk': ['WIPE', 'INSTALL_DISK', 'INSTALL_DISK_SERIAL', 'INSTALL', 'OS', 'INSTALLER_IMAGE', 'CONFIG_URL', 'IMAGE_URL', 'IMAGE_SHA256', 'SEED_URL'],
  install: ['INSTALL', 'INSTALL_DISK', 'INSTALLER_IMAGE', 'CONFIG_URL'],
  'image-to-disk': ['OS', 'INSTALL_DISK', 'IMAGE_URL', 'IMAGE_SHA256', 'SEED_URL', 'NODE'],
  'next-boot': ['OS', 'INSTALL_DISK'],
  reboot: ['POWER_OFF'],
} as const satisfies Record<string, readonly string[]>;

export type ActionName = keyof typeof ACTIONS;

/** Where the action bundles sit in the tools image. */
export const BUNDLE_DIR = '/opt/fleet';

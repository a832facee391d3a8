/**
 * fleet's tools image (images/tink-reprovision-tools/Dockerfile: node, the action bundles in
 * /opt/fleet, the disk, EFI and Docker tools they call; no entrypoint), made of this machine's own
 * programs since no base image can be pulled here, and pushed. It trusts `caCert` as the lab's
 * image trusts the lab's CA: the actions fetch seeds and images from fleetd over TLS.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DockerEngine } from './engine.js';
import { GCONV_FILES } from './installer-image.js';

/** Debian's docker CLI, not whatever else is first on this machine's PATH. */
const TOOLS = [
  '/usr/sbin/wipefs',
  '/usr/sbin/blkdiscard',
  '/usr/sbin/blockdev',
  '/usr/sbin/debugfs',
  '/usr/bin/mcopy',
  '/usr/bin/mdir',
  '/usr/bin/mtype',
  '/usr/bin/efibootmgr',
  '/usr/bin/xz',
  '/usr/bin/zstd',
  '/usr/bin/sync',
  '/usr/bin/tar',
  '/usr/bin/docker',
];
const CA_IN_IMAGE = '/etc/fleet/ca.crt';

export async function pushToolsImage(engine: DockerEngine, image: string, bundles: string, caCert: string): Promise<void> {
  const files = {
    ...Object.fromEntries(
      readdirSync(bundles)
        .filter((f) => f.endsWith('.mjs'))
        .map((f) => [`/opt/fleet/${f}`, join(bundles, f)]),
    ),
    [CA_IN_IMAGE]: caCert,
    ...GCONV_FILES,
  };
  await engine.importPrograms(image, [process.execPath, ...TOOLS], files, [`ENV NODE_EXTRA_CA_CERTS=${CA_IN_IMAGE}`]);
  await engine.docker(['push', image]);
  await engine.docker(['image', 'rm', image]);
}

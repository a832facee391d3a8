/**
 * The Talos installer as a real image (no siderolabs/installer can be pulled here): the installer
 * double's program (test/actions/stubs/talos-installer.mjs), run by this machine's node, with the
 * disk tools it calls; its entrypoint is /bin/installer, as siderolabs/installer's is. A second
 * image of the same program fails mid-partitioning, as a release with a bad build would.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DockerEngine } from './engine.js';

const PROGRAM = fileURLToPath(new URL('../actions/stubs/talos-installer.mjs', import.meta.url));
const GCONV = '/usr/lib/x86_64-linux-gnu/gconv';
/** mtools converts names through iconv's codepage 850, which glibc loads from gconv, not through ldd. */
export const GCONV_FILES: Record<string, string> = Object.fromEntries(
  ['gconv-modules', 'gconv-modules.cache', 'IBM850.so', 'gconv-modules.d/gconv-modules-extra.conf'].map((f) => [`${GCONV}/${f}`, `${GCONV}/${f}`]),
);
const TOOLS = ['/usr/bin/busybox', '/usr/sbin/sgdisk', '/usr/sbin/mkfs.vfat', '/usr/bin/mmd', '/usr/bin/mcopy'];

const LOADER = '/opt/installer/BOOTX64.EFI';

export interface InstallerImages {
  /** The installer that writes Talos's layout. */
  good: string;
  /** The same installer, failing mid-partitioning. */
  broken: string;
}

/**
 * Builds both images under `repo` (`<registry host>/<path>`) and pushes them; the engine's cache
 * keeps neither, so a wipe's pull must fetch them. `loader`: the boot loader the installer puts on
 * the disk's ESP (a UKI whose first boot fetches talos.config), else a placeholder.
 */
export async function pushInstallerImages(engine: DockerEngine, repo: string, opts: { loader?: string } = {}): Promise<InstallerImages> {
  const images = { good: `${repo}:v1.9.5`, broken: `${repo}:v0.0.0-broken` };
  const dir = mkdtempSync(join(tmpdir(), 'fleet-installer-image-'));
  try {
    const entry = join(dir, 'installer.sh');
    writeFileSync(entry, `#!/usr/bin/busybox sh\nexec ${process.execPath} /opt/talos-installer.mjs "$@"\n`, { mode: 0o755 });
    const files: Record<string, string> = {
      '/bin/installer': entry,
      '/opt/talos-installer.mjs': PROGRAM,
      ...GCONV_FILES,
      ...(opts.loader ? { [LOADER]: opts.loader } : {}),
    };
    const env = opts.loader ? [`ENV FLEET_INSTALLER_LOADER=${LOADER}`] : [];
    await engine.importPrograms(images.good, [process.execPath, ...TOOLS], files, ['ENTRYPOINT ["/bin/installer"]', ...env]);
    await engine.derive(images.good, images.broken, ['ENV FLEET_INSTALLER_BEHAVIOUR=broken']);
    for (const i of [images.good, images.broken]) await engine.docker(['push', i]);
    await engine.docker(['image', 'rm', images.good, images.broken]);
    return images;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * What a test file that runs the actions against real Docker starts once (beforeAll): a private
 * engine, a loopback registry holding the good and the broken installer, and the names of images
 * the engine cannot pull. dockerd (and the loop devices its installer writes) need root.
 */
import { DockerEngine } from './engine.js';
import { pushInstallerImages, type InstallerImages } from './installer-image.js';
import { Registry } from './registry.js';

export const isRoot = process.getuid?.() === 0;

export interface DockerLab {
  engine: DockerEngine;
  registry: Registry;
  installer: InstallerImages;
  /** A tag of the installer the registry does not hold: the engine answers `manifest unknown`. */
  missing: string;
  /** The installer at a registry address nothing listens on (port 1): `connection refused`. */
  unreachable: string;
  stop(): Promise<void>;
}

export async function startDockerLab(): Promise<DockerLab> {
  const [engine, registry] = await Promise.all([DockerEngine.start(), Registry.start()]);
  const stop = async () => {
    await registry.stop();
    await engine.stop();
  };
  try {
    const installer = await pushInstallerImages(engine, `${registry.host}/talos/installer`);
    return { engine, registry, installer, missing: `${registry.host}/talos/installer:v9.9.9`, unreachable: '127.0.0.1:1/talos/installer:v1.9.5', stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

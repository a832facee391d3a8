/**
 * Debian's docker-registry (the Docker distribution registry) on a loopback port of its own, its
 * storage in a temp dir: what HookOS pulls the installer and the tools image from. A real engine
 * takes plain HTTP from a registry on 127.0.0.0/8.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Daemons, freePort } from '../daemon.js';

export class Registry {
  private constructor(
    /** `127.0.0.1:<port>`: the host part of image names it holds. */
    readonly host: string,
    readonly port: number,
    private readonly daemons: Daemons,
  ) {}

  static async start(): Promise<Registry> {
    const d = new Daemons('registry');
    const port = await freePort();
    writeFileSync(
      join(d.dir, 'config.yml'),
      `version: 0.1\nlog: { level: error }\nstorage: { filesystem: { rootdirectory: ${d.dir}/data } }\nhttp: { addr: 127.0.0.1:${port} }\n`,
    );
    d.spawn('docker-registry', ['serve', join(d.dir, 'config.yml')]);
    await d.until('docker-registry', async () => (await fetch(`http://127.0.0.1:${port}/v2/`)).ok);
    return new Registry(`127.0.0.1:${port}`, port, d);
  }

  stop(): Promise<void> {
    return this.daemons.stop();
  }
}

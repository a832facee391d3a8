/**
 * `fleet serve` as it ships (the esbuild bundle, not tsx: tsx's loader alone doubles the RSS), over
 * HTTPS on loopback with a self-signed certificate.
 */
import { readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildFleet } from '../scripts/build.js';
import { startFleetServe, type FleetServe } from '../test/fleet-serve.js';
import { selfSigned, tlsFiles } from '../test/tls-files.js';

const NODE_MODULES = fileURLToPath(new URL('../node_modules', import.meta.url));

export interface Fleetd {
  bundle: string;
  /** The certificate fleetd serves, which is its own CA: what the agents pin. */
  ca: string;
  cert: string;
  key: string;
}

/** Builds fleet.mjs into `dir` (its native addons resolve through a node_modules link) and makes the certificate. */
export async function prepareFleetd(dir: string): Promise<Fleetd> {
  const bundle = await buildFleet(dir);
  await symlink(NODE_MODULES, join(dir, 'node_modules'));
  const { cert, key } = selfSigned(tlsFiles(dir), { subject: '/CN=fleetd', ips: ['127.0.0.1'] });
  return { bundle, ca: await readFile(cert, 'utf8'), cert, key };
}

export function startFleetd(f: Fleetd, nodes: string, state: string): Promise<FleetServe> {
  return startFleetServe(['--nodes', nodes, '--state', state, '--cert', f.cert, '--key', f.key, '--listen', '127.0.0.1:0', '--syslog-listen', 'off'], {
    bundle: f.bundle,
  });
}

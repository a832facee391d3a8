import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MTOOLS_ENV } from '../disk/esp.js';
import type { ActionIO } from '../lib/io.js';
import { Refusal } from '../lib/refusal.js';
import { lastLine } from '../lib/run.js';
import { IMAGE_FAILURES, IMAGE_LINES } from '../lines/image.js';
import { FLEET_SEED_FILE } from './seed-places.js';

export interface FleetSeed {
  seedUrl: string;
  /** The node's host name (NODE). */
  node: string;
  /** SMBIOS system UUID, lowercase, as the node's firmware will report it. */
  nodeUuid: string;
  installCode: string;
}

export async function readNodeUuid(io: ActionIO): Promise<string> {
  const path = join(io.sysRoot, 'class/dmi/id/product_uuid');
  const uuid = (await readFile(path, 'utf8').catch(() => '')).trim().toLowerCase();
  if (!/^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$/.test(uuid)) throw new Refusal(IMAGE_LINES.noNodeUuid(path));
  return uuid;
}

/**
 * Puts the seed at the root of the FAT in `image` (mtools' `<disk>@@<offset>`: no mount), over any
 * earlier one, and reads it back. The file passes through `dir`, a private directory, at mode 0600.
 */
export async function placeFleetSeed(io: ActionIO, image: string, seed: FleetSeed, dir: string): Promise<void> {
  const body = `${JSON.stringify(seed)}\n`;
  const local = join(dir, FLEET_SEED_FILE);
  await writeFile(local, body, { mode: 0o600 });
  const copy = await io.run('mcopy', ['-D', 'o', '-i', image, local, `::/${FLEET_SEED_FILE}`], { env: MTOOLS_ENV });
  if (copy.code !== 0) throw new Error(IMAGE_FAILURES.mcopyFailed(lastLine(copy)));
  const back = await io.run('mtype', ['-i', image, `::/${FLEET_SEED_FILE}`], { env: MTOOLS_ENV });
  if (back.code !== 0 || back.stdout !== body) throw new Error(IMAGE_FAILURES.fleetSeedNotBack());
}

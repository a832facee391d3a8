import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { FleetError, errorMessage } from '../../shared/errors.js';
import { writeFileAtomic } from '../../shared/fs/atomic-write.js';
import type { ClassNetwork } from './talos-config.js';

/** Where a disk-image class's seed inputs live in the class inputs directory. */
export const SEED_INPUTS_FILE = 'seed.yaml';

/**
 * A disk-image class's seed inputs, as `fleet render-class-inputs` writes them: the class's
 * network, its cloud-init user-data (cloud-init-nocloud, written verbatim: cloud-init renders its
 * own templates), and what it adds to a nixos-image or alpine-image node's seed document.
 */
export interface SeedInputs {
  network: ClassNetwork;
  userData?: string;
  data: Record<string, unknown>;
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Writes `<dir>/<class>/seed.yaml`, mode 0600 in a 0700 directory (user-data may hold secrets). */
export async function writeSeedInputs(dir: string, inputs: Map<string, SeedInputs>): Promise<void> {
  for (const [name, seed] of inputs) {
    await mkdir(join(dir, name), { recursive: true, mode: 0o700 });
    await writeFileAtomic(join(dir, name, SEED_INPUTS_FILE), stringify(seed, { lineWidth: 0 }), 0o600);
  }
}

/** A class's seed inputs, checked: missing or malformed ones refuse the render, so no code is answered. */
export async function readSeedInputs(dir: string, className: string): Promise<SeedInputs> {
  const path = join(dir, className, SEED_INPUTS_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new FleetError(
      'class-inputs-missing',
      `the seed inputs of ${className} are missing (${errorMessage(err)}); run fleet render-class-inputs and deploy them`,
    );
  }
  let v: unknown;
  try {
    v = parse(text);
  } catch (err) {
    throw new FleetError('class-inputs-invalid', `${path} is not YAML: ${errorMessage(err)}`);
  }
  const bad = (why: string) => new FleetError('class-inputs-invalid', `${path} ${why}; run fleet render-class-inputs and deploy them`);
  if (!isMap(v) || !isMap(v.network) || typeof v.network.gateway !== 'string') throw bad('names no network.gateway');
  const ns = v.network.nameservers;
  if (ns !== undefined && !(Array.isArray(ns) && ns.every((n) => typeof n === 'string'))) throw bad('has nameservers that are not a list of addresses');
  if (v.userData !== undefined && typeof v.userData !== 'string') throw bad('has a userData that is not text');
  if (v.data !== undefined && !isMap(v.data)) throw bad('has a data that is not a map');
  return {
    network: { gateway: v.network.gateway, ...(ns ? { nameservers: ns as string[] } : {}) },
    ...(typeof v.userData === 'string' ? { userData: v.userData } : {}),
    data: (v.data as Record<string, unknown> | undefined) ?? {},
  };
}

import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { FleetError, errorMessage } from '../../shared/errors.js';
import { loadBootConfig } from '../../hookos/boot-params.js';
import { generate, writeGenerated } from '../../hookos/generate.js';
import { authenticodeDigest } from '../../shared/pe/authenticode.js';
import { readPeHeaders } from '../../shared/pe/headers.js';

const USAGE = 'usage: fleet hookos generate --config FILE --out DIR [--set NAME=VALUE ...]\n       fleet hookos digest UKI...';

/**
 * `fleet hookos generate`: the UKI's command line, the iPXE menu, the Hardware iPXE script and
 * hook-bootkit's container, from one boot config. `--set` fills the config's `${NAME}`s (the lab's
 * SPORE_BOOTSTRAP_IP).
 */
export async function run(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'digest') return digest(rest);
  if (sub !== 'generate') throw new FleetError('usage', USAGE);
  const { values: o } = parseArgs({ args: rest, options: { config: { type: 'string' }, out: { type: 'string' }, set: { type: 'string', multiple: true } } });
  if (!o.config || !o.out) throw new FleetError('usage', USAGE);
  const params = new Map<string, string>();
  for (const s of o.set ?? []) {
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/s.exec(s);
    if (!m) throw new FleetError('usage', `--set ${s}: expected NAME=VALUE with NAME in capitals (e.g. SPORE_BOOTSTRAP_IP=192.0.2.10)`);
    params.set(m[1]!, m[2]!);
  }
  let text: string;
  try {
    text = await readFile(o.config, 'utf8');
  } catch (err) {
    throw new FleetError('hookos-config', `cannot read ${o.config}: ${errorMessage(err)}`);
  }
  const files = generate(loadBootConfig(text, params, o.config));
  await writeGenerated(o.out, files);
  for (const f of files) console.log(`${o.out}/${f.name} written`);
  return 0;
}

/**
 * `fleet hookos digest UKI...`: each image's Authenticode SHA-256, what the firmware measures into
 * PCR 4 when it loads it, for a class's `hookos_images`; and of the kernel a UKI embeds (its
 * `.linux`), which PCR 4 measures last when the stub loads it as an image of its own.
 */
async function digest(files: string[]): Promise<number> {
  if (files.length === 0) throw new FleetError('usage', USAGE);
  for (const file of files) {
    let image: Buffer;
    try {
      image = await readFile(file);
    } catch (err) {
      throw new FleetError('pe-unreadable', `cannot read ${file}: ${errorMessage(err)}`);
    }
    console.log(`${authenticodeDigest(image)}  ${file}`);
    const linux = readPeHeaders(image).sections.find((s) => s.name === '.linux');
    if (linux)
      console.log(
        `${authenticodeDigest(image.subarray(linux.at, linux.at + Math.min(linux.size, linux.virtualSize)))}  ${file} (.linux, the kernel it embeds)`,
      );
  }
  return 0;
}

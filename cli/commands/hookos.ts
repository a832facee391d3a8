import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { FleetError, errorMessage } from '../../shared/errors.js';
import { loadBootConfig } from '../../hookos/boot-params.js';
import { generate, writeGenerated } from '../../hookos/generate.js';

const USAGE = 'usage: fleet hookos generate --config FILE --out DIR [--set NAME=VALUE ...]';

/**
 * `fleet hookos generate`: the UKI's command line, the iPXE menu, the Hardware iPXE script and
 * hook-bootkit's container, from one boot config. `--set` fills the config's `${NAME}`s (the lab's
 * SPORE_BOOTSTRAP_IP).
 */
export async function run(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
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

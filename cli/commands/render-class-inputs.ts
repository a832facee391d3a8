import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';
import { FleetError } from '../../shared/errors.js';
import { renderClassInputs, renderSeedInputs, writeClassInputs, type ClassSettings, type TalosSecrets } from '../../verifier/install/class-inputs.js';
import { writeSeedInputs } from '../../verifier/install/seed-inputs.js';

const USAGE = 'usage: fleet render-class-inputs --secrets FILE --settings FILE --out DIR';

/** `fleet render-class-inputs`: each class's Talos inputs (or, for a disk-image class, its seed's) from the cluster's secrets bundle and settings. */
export async function run(args: string[]): Promise<number> {
  const { values: o } = parseArgs({ args, options: { secrets: { type: 'string' }, settings: { type: 'string' }, out: { type: 'string' } } });
  if (!o.secrets || !o.settings || !o.out) throw new FleetError('usage', USAGE);
  const secrets = parse(await readFile(o.secrets, 'utf8')) as TalosSecrets;
  const settings = parse(await readFile(o.settings, 'utf8')) as ClassSettings;
  if (!secrets?.certs?.os || !secrets.cluster) throw new FleetError('render-inputs-invalid', `${o.secrets} is not a talosctl gen secrets bundle`);
  if (!settings?.classes || !settings.endpoint || !settings.clusterName || !settings.network?.gateway) {
    throw new FleetError('render-inputs-invalid', `${o.settings} needs clusterName, endpoint, kubernetesVersion, network.gateway and classes`);
  }
  const inputs = renderClassInputs(secrets, settings);
  await writeClassInputs(o.out, inputs);
  const seeds = renderSeedInputs(settings);
  await writeSeedInputs(o.out, seeds);
  for (const [name, { config }] of inputs) console.log(`${o.out}/${name}: ${String(config.machine.type)} inputs written`);
  for (const name of seeds.keys()) console.log(`${o.out}/${name}: seed inputs written`);
  return 0;
}

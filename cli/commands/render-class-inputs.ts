import { readFile } from 'node:fs/promises';
import { type CommandDef, commandUsage, HELP_OPTION, readCommand } from '../../shared/options.js';
import { readClassSettings } from '../../verifier/install/class-settings.js';
import { parse } from 'yaml';
import { FleetError } from '../../shared/errors.js';
import { renderClassInputs, renderSeedInputs, writeClassInputs, type TalosSecrets } from '../../verifier/install/class-inputs.js';
import { writeSeedInputs } from '../../verifier/install/seed-inputs.js';

const RENDER_CLASS_INPUTS = {
  command: 'render-class-inputs',
  synopsis: '--secrets FILE --settings FILE --out DIR',
  options: [
    { name: 'secrets', value: 'FILE', help: "the cluster's `talosctl gen secrets` bundle" },
    { name: 'settings', value: 'FILE', help: "the cluster's settings (docs/operations.md holds a complete example)" },
    { name: 'out', value: 'DIR', help: "where each class's inputs are written (fleet serve --class-inputs)" },
    HELP_OPTION,
  ],
} as const satisfies CommandDef;

/** `fleet render-class-inputs`: each class's Talos inputs (or, for a disk-image class, its seed's) from the cluster's secrets bundle and settings. */
export async function run(args: string[]): Promise<number> {
  const r = readCommand(RENDER_CLASS_INPUTS, args);
  if (r === 'help') {
    console.log(commandUsage(RENDER_CLASS_INPUTS));
    return 0;
  }
  const o = { secrets: r.given('secrets'), settings: r.given('settings'), out: r.given('out') };
  if (!o.secrets || !o.settings || !o.out) throw new FleetError('usage', `--secrets, --settings and --out are required\n${commandUsage(RENDER_CLASS_INPUTS)}`);
  const secrets = parse(await readFile(o.secrets, 'utf8')) as TalosSecrets;
  if (!secrets?.certs?.os || !secrets.cluster) throw new FleetError('render-inputs-invalid', `${o.secrets} is not a talosctl gen secrets bundle`);
  const settings = readClassSettings(parse(await readFile(o.settings, 'utf8')), o.settings);
  const inputs = renderClassInputs(secrets, settings);
  await writeClassInputs(o.out, inputs);
  const seeds = renderSeedInputs(settings);
  await writeSeedInputs(o.out, seeds);
  for (const [name, { config }] of inputs) console.log(`${o.out}/${name}: ${String(config.machine.type)} inputs written`);
  for (const name of seeds.keys()) console.log(`${o.out}/${name}: seed inputs written`);
  return 0;
}

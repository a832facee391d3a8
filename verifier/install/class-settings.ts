import { isIP } from 'node:net';
import { FleetError } from '../../shared/errors.js';
import { printable } from '../../shared/text/terminal.js';
import type { ClassSettings } from './class-inputs.js';

/**
 * `fleet render-class-inputs --settings`, read strictly: every key it does not know and every
 * value of the wrong type is a problem naming its path, all of them at once, so a typo (`type:
 * wroker`, a top-level `nameservers:`) stops the command instead of rendering inputs fleetd later
 * refuses, or dropping what nodes need.
 */
type Shape = { kind: 'string' | 'strings' | 'ip' | 'ips' | 'map' } | { kind: 'one-of'; of: readonly string[] } | { kind: 'fields'; fields: Fields };
type Fields = Record<string, { shape: Shape; required?: boolean }>;

const str = { kind: 'string' } as const;
const NETWORK: Fields = {
  gateway: { shape: { kind: 'ip' }, required: true },
  nameservers: { shape: { kind: 'ips' } },
  podSubnets: { shape: { kind: 'strings' } },
  serviceSubnets: { shape: { kind: 'strings' } },
};
const TOP: Fields = {
  clusterName: { shape: str, required: true },
  endpoint: { shape: str, required: true },
  kubernetesVersion: { shape: str, required: true },
  network: { shape: { kind: 'fields', fields: NETWORK }, required: true },
  apiServerSANs: { shape: { kind: 'strings' } },
  classes: { shape: { kind: 'map' }, required: true },
};
const CLASS_TYPE = { shape: { kind: 'one-of', of: ['worker', 'controlplane', 'seed'] }, required: true } as const;
const TALOS_CLASS: Fields = { type: CLASS_TYPE, installerImage: { shape: str, required: true } };
const SEED_CLASS: Fields = { type: CLASS_TYPE, userData: { shape: str }, data: { shape: { kind: 'map' } } };

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

function check(value: unknown, shape: Shape, path: string, problems: string[]): void {
  const wrong = (what: string) => problems.push(`${path} is not ${what}`);
  switch (shape.kind) {
    case 'string':
      if (typeof value !== 'string' || value === '') wrong('a string');
      return;
    case 'strings':
      if (!isStrings(value)) wrong('a list of strings');
      return;
    case 'ip':
      if (!(typeof value === 'string' && isIP(value))) wrong('an IP address');
      return;
    case 'ips':
      if (!(isStrings(value) && value.every((x) => isIP(x)))) wrong('a list of IP addresses');
      return;
    case 'map':
      if (!isMap(value)) wrong('a map');
      return;
    case 'one-of':
      if (typeof value !== 'string' || !shape.of.includes(value))
        wrong(`one of ${shape.of.join(', ')} (it is ${printable(JSON.stringify(value) ?? 'nothing')})`);
      return;
    case 'fields':
      if (!isMap(value)) return void wrong('a map');
      fields(value, shape.fields, `${path}.`, problems);
  }
}

function fields(value: Record<string, unknown>, defs: Fields, prefix: string, problems: string[]): void {
  for (const key of Object.keys(value)) if (!Object.hasOwn(defs, key)) problems.push(`${prefix}${printable(key)} is not a setting${hint(prefix, key)}`);
  for (const [key, def] of Object.entries(defs)) {
    if (value[key] === undefined || value[key] === null) {
      if (def.required) problems.push(`${prefix}${key} is missing`);
    } else check(value[key], def.shape, `${prefix}${key}`, problems);
  }
}

/** Where a key written at the wrong level belongs. */
function hint(prefix: string, key: string): string {
  if (prefix === '' && Object.hasOwn(NETWORK, key)) return ` (network.${key} is)`;
  return '';
}

/** The settings, or a render-inputs-invalid error naming every problem. */
export function readClassSettings(raw: unknown, name: string): ClassSettings {
  const problems: string[] = [];
  if (!isMap(raw)) problems.push('it is not a map of settings');
  else {
    fields(raw, TOP, '', problems);
    if (isMap(raw.classes)) {
      if (Object.keys(raw.classes).length === 0) problems.push('classes is empty');
      for (const [cname, c] of Object.entries(raw.classes)) {
        const where = `classes.${printable(cname)}`;
        if (!isMap(c)) problems.push(`${where} is not a map`);
        else fields(c, c.type === 'seed' ? SEED_CLASS : TALOS_CLASS, `${where}.`, problems);
      }
    }
  }
  if (problems.length) throw new FleetError('render-inputs-invalid', `${name} has ${problems.length} problem(s): ${problems.join('; ')}`);
  return raw as unknown as ClassSettings;
}

import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readClassInputs, renderClassInputs, type ClassSettings, type TalosSecrets } from '../../verifier/install/class-inputs.js';
import { renderTalosConfig } from '../../verifier/install/talos-config.js';
import { TESTDATA } from '../testdata.js';
import { classInputs, SETTINGS } from './talos-fixture.js';

/**
 * fleet's rendered Talos configs against Talos's own JSON Schema (pkg/machinery/config/schemas of
 * the installer's version, in testdata/talos/): the v1alpha1 document, every field known
 * and of its type. One known gap: the schema omits `persist` (docgen:nodoc), which Talos itself
 * generates (`persist: true`), so it is taken out before the check.
 */
const SCHEMAS = `${TESTDATA}talos/`;

function talosValidator(version: string) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat('uri', (s: string) => URL.canParse(s));
  ajv.addSchema(JSON.parse(readFileSync(join(SCHEMAS, version, 'config.schema.json'), 'utf8')) as object, 'talos');
  const validate = ajv.getSchema('talos#/$defs/v1alpha1.Config')!;
  return (doc: Record<string, unknown>): string[] => {
    const { persist: _nodoc, ...rest } = doc;
    return validate(rest)
      ? []
      : (validate.errors ?? []).map(
          (e: ErrorObject) =>
            `${e.instancePath || '/'} ${e.message ?? ''}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`,
        );
  };
}

let dir: string;
let inputs: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fleet-talos-schema-'));
  inputs = (await classInputs(dir)).dir;
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const talosClasses = Object.entries(SETTINGS.classes).filter(
  (e): e is [string, { type: 'worker' | 'controlplane'; installerImage: string }] => e[1].type !== 'seed',
);

describe("rendered configs against Talos's own schema", () => {
  it.each(talosClasses)("%s: the config a node fetches is a valid v1alpha1 document for its installer's Talos version", async (name, cls) => {
    const version = /:(v\d+\.\d+\.\d+)$/.exec(cls.installerImage)![1]!;
    const { base, network } = await readClassInputs(inputs, name);
    const doc = parse(
      renderTalosConfig(base, network, {
        hostname: 'node-1',
        address: '10.0.1.11/24',
        mac: '52:54:00:12:34:56',
        installDisk: '/dev/nvme0n1',
        bootstrapToken: 'abcdef.0123456789abcdef',
      }),
    ) as Record<string, unknown>;
    expect(doc.persist).toBe(true);
    expect(talosValidator(version)(doc)).toEqual([]);
  });

  it('the schema refuses a config with a typo or a wrong type: a real check, not ours', async () => {
    const { base, network } = await readClassInputs(inputs, 'worker');
    const doc = parse(
      renderTalosConfig(base, network, { hostname: 'node-1', address: '10.0.1.11/24', mac: '52:54:00:12:34:56', installDisk: '/dev/nvme0n1' }),
    ) as { machine: Record<string, unknown> };
    const check = talosValidator('v1.9.5');
    expect(check({ ...doc, machine: { ...doc.machine, instal: doc.machine.install } })).toContainEqual(
      expect.stringMatching(/^\/machine must NOT have additional properties \(instal\)$/),
    );
    expect(check({ ...doc, machine: { ...doc.machine, install: { ...(doc.machine.install as object), wipe: 'no' } } })).toContainEqual(
      '/machine/install/wipe must be boolean',
    );
  });
});

describe("fleet's base documents against what Talos itself generates", () => {
  const STABILITY = join(SCHEMAS, 'v1.9.5', 'stability');
  // Talos's stability test's inputs: its secrets bundle, cluster `base` at https://base:6443, Kubernetes 1.28.0.
  const settings = {
    clusterName: 'base',
    endpoint: 'https://base:6443',
    kubernetesVersion: 'v1.28.0',
    network: { gateway: '10.0.1.1' },
    classes: {
      worker: { type: 'worker', installerImage: 'ghcr.io/siderolabs/installer:v1.9.5' },
      controlplane: { type: 'controlplane', installerImage: 'ghcr.io/siderolabs/installer:v1.9.5' },
    },
  } as const;

  it.each(['worker', 'controlplane'])("%s: field by field Talos 1.9's base-%s.yaml, but for the installer image fleet adds", (cls) => {
    const secrets = parse(readFileSync(join(STABILITY, 'secrets.yaml'), 'utf8')) as TalosSecrets;
    const ours = structuredClone(renderClassInputs(secrets, settings as unknown as ClassSettings).get(cls)!.config) as unknown as {
      machine: { install: Record<string, unknown> };
    };
    // fleet's one addition to Talos's base: the class's installer image, which install runs.
    expect(ours.machine.install.image).toBe('ghcr.io/siderolabs/installer:v1.9.5');
    delete ours.machine.install.image;
    expect(ours).toEqual(parse(readFileSync(join(STABILITY, `base-${cls}.yaml`), 'utf8')));
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ACTIONS, BUNDLE_DIR } from '../../images/tink-reprovision-tools/actions.js';
import { readEnv } from '../../images/tink-reprovision-tools/lib/env.js';
import { LACKS, WIPE_LINES } from '../../images/tink-reprovision-tools/lines/wipe.js';
import { lackRefusal } from '../../images/tink-reprovision-tools/wipe/run-needs.js';
import type { Device } from '../../verifier/inventory/device.js';
import type { NodeClass } from '../../verifier/inventory/embedded/nodes-file.js';
import { desiredWorkflow, HARDWARE_MAP_KEYS, type RunKind } from '../../verifier/reconcile/desired.js';

const DIR = new URL('../../images/templates/', import.meta.url);
const templates = readdirSync(DIR).filter((f) => f.endsWith('.yaml'));

interface TemplateData {
  version: string;
  name: string;
  global_timeout: number;
  tasks: Array<{
    name: string;
    worker: string;
    volumes?: string[];
    actions: Array<{ name: string; image: string; timeout: number; command: string[]; environment?: Record<string, string>; pid?: string }>;
  }>;
}

function readTemplate(file: string) {
  const obj = parse(readFileSync(new URL(file, DIR), 'utf8')) as { apiVersion: string; kind: string; metadata: { name: string }; spec: { data: string } };
  const data = parse(obj.spec.data) as TemplateData;
  return { obj, data, actions: data.tasks.flatMap((t) => t.actions) };
}

describe.each(templates)('the Template %s', (file) => {
  const { obj, data, actions } = readTemplate(file);

  it('is a tinkerbell.org/v1alpha1 Template whose data is Tinkerbell template data', () => {
    expect(obj).toMatchObject({ apiVersion: 'tinkerbell.org/v1alpha1', kind: 'Template' });
    expect(data.version).toBe('0.1');
    expect(data.name).toBe(obj.metadata.name);
    expect(data.global_timeout).toBeGreaterThan(0);
    for (const t of data.tasks) expect(t.worker).toBe('{{.device_1}}');
    for (const a of actions) {
      expect(a.image).toMatch(/^[\w./-]+:[\w.-]+$/);
      expect(a.timeout).toBeGreaterThan(0);
    }
  });

  it('names only actions that exist, each run from its bundle, with only the environment it reads', () => {
    for (const a of actions) {
      expect(Object.keys(ACTIONS)).toContain(a.name);
      expect(a.command).toEqual(['node', `${BUNDLE_DIR}/${a.name}.mjs`]);
      for (const k of Object.keys(a.environment ?? {})) expect(ACTIONS[a.name as keyof typeof ACTIONS]).toContain(k);
    }
  });

  it('reads only keys a run puts in its hardwareMap', () => {
    const used = [...obj.spec.data.matchAll(/\{\{\s*\.(\w+)\s*\}\}/g)].map((m) => m[1]);
    for (const k of used) expect(HARDWARE_MAP_KEYS).toContain(k);
  });

  it('gives wipe-disk INSTALL, OS, and every variable a later action reads that wipe-disk checks, with the same value', () => {
    const wipe = actions[0]!.environment ?? {};
    expect(wipe).toMatchObject({ INSTALL: '{{.install}}', OS: '{{.os}}' });
    for (const a of actions.slice(1)) {
      for (const [k, v] of Object.entries(a.environment ?? {})) {
        if ((ACTIONS['wipe-disk'] as readonly string[]).includes(k)) expect(wipe[k], `${a.name} reads ${k}`).toBe(v);
      }
    }
  });

  it('wipes first and reboots last, and mounts /worker/fleet where install reads the code', () => {
    expect(actions[0]!.name).toBe('wipe-disk');
    expect(actions.at(-1)).toMatchObject({ name: 'reboot', pid: 'host' });
    expect(data.tasks[0]!.volumes).toContain('/worker/fleet:/tmp/fleet');
  });
});

it('the provision and provision-image Templates both exist', () => {
  expect(templates.sort()).toEqual(['provision-image.yaml', 'provision.yaml']);
});

/**
 * wipe-disk's environment as Tinkerbell renders it from a Workflow fleetd creates: each {{.key}}
 * from the hardwareMap; a key it lacks fails the render, as Tinkerbell's missingkey=error does
 * (test/tinkerbell renders the Templates with Tinkerbell's own code).
 */
describe('wipe-disk, given the Workflows fleetd creates', () => {
  const device: Device = {
    id: 'n1',
    hostname: 'n1',
    serial: 'SN1',
    status: 'active',
    controlPlane: false,
    installDisk: '/dev/nvme0n1',
    installDiskSerial: 'S4EV',
    binding: {},
    mac: '52:54:00:12:34:56',
  };
  const classes: NodeClass[] = [
    { name: 'worker', payload: 'talos', installerImage: 'ghcr.io/siderolabs/installer:v1.9.5', controlPlane: false },
    { name: 'nixos', payload: 'nixos-image', imageUrl: 'https://img.example/nixos.raw', imageSha256: 'c'.repeat(64), controlPlane: false },
    { name: 'alpine', payload: 'alpine-image', imageUrl: 'https://img.example/alpine.raw.zst', imageSha256: 'd'.repeat(64), controlPlane: false },
    { name: 'cloud', payload: 'cloud-init-nocloud', imageUrl: 'https://img.example/cloud.raw.xz', imageSha256: 'e'.repeat(64), controlPlane: false },
  ];
  const urls = { seedUrl: 'https://fleet.example:8443/v1/seed', configUrl: 'https://fleet.example:8443/v1/config' };

  function wipeRefusal(cls: NodeClass, kind: RunKind, u: { seedUrl?: string; configUrl?: string }): string | null {
    const wf = desiredWorkflow(device, cls, kind, 1764576000, 'tinkerbell', u);
    const map = wf.spec!.hardwareMap as Record<string, string>;
    const wipe = readTemplate(`${String(wf.spec!.templateRef)}.yaml`).actions.find((a) => a.name === 'wipe-disk')!;
    const rendered = Object.fromEntries(
      Object.entries(wipe.environment ?? {}).map(([k, v]) => [
        k,
        v.replace(/\{\{\s*\.(\w+)\s*\}\}/g, (_m, key: string) => {
          if (!(key in map)) throw new Error(`map has no entry for key "${key}"`);
          return map[key]!;
        }),
      ]),
    );
    return lackRefusal(readEnv('wipe-disk', rendered));
  }

  it.each(classes.map((c) => [c.payload, c] as const))('lets a %s provision through, and its retirement', (_, cls) => {
    expect(wipeRefusal(cls, 'provision', urls)).toBeNull();
    expect(wipeRefusal(cls, 'retire', urls)).toBeNull();
    expect(wipeRefusal(cls, 'retire', {})).toBeNull();
  });

  it('refuses a provision fleetd has no config URL or seed URL for, before the wipe', () => {
    expect(wipeRefusal(classes[0]!, 'provision', { seedUrl: urls.seedUrl })).toBe(WIPE_LINES.talosLacks(`${LACKS.CONFIG_URL} (CONFIG_URL)`));
    for (const cls of classes.slice(1)) {
      expect(wipeRefusal(cls, 'provision', { configUrl: urls.configUrl })).toBe(WIPE_LINES.imageLacks(cls.payload, `${LACKS.SEED_URL} (SEED_URL)`));
    }
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ACTIONS, BUNDLE_DIR } from '../../images/tink-reprovision-tools/actions.js';
import { HARDWARE_MAP_KEYS } from '../../verifier/reconcile/desired.js';

const DIR = new URL('../../images/templates/', import.meta.url);
const templates = readdirSync(DIR).filter((f) => f.endsWith('.yaml'));

interface TemplateData {
  version: string;
  name: string;
  global_timeout: number;
  tasks: Array<{ name: string; worker: string; volumes?: string[]; actions: Array<{ name: string; image: string; timeout: number; command: string[]; environment?: Record<string, string>; pid?: string }> }>;
}

describe.each(templates)('the Template %s', (file) => {
  const obj = parse(readFileSync(new URL(file, DIR), 'utf8')) as { apiVersion: string; kind: string; metadata: { name: string }; spec: { data: string } };
  const data = parse(obj.spec.data) as TemplateData;
  const actions = data.tasks.flatMap((t) => t.actions);

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

  it('wipes first and reboots last, and mounts /worker/fleet where install reads the code', () => {
    expect(actions[0]!.name).toBe('wipe-disk');
    expect(actions.at(-1)).toMatchObject({ name: 'reboot', pid: 'host' });
    expect(data.tasks[0]!.volumes).toContain('/worker/fleet:/tmp/fleet');
  });
});

it('the provision and provision-image Templates both exist', () => {
  expect(templates.sort()).toEqual(['provision-image.yaml', 'provision.yaml']);
});

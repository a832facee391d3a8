import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { readClassInputs } from '../../verifier/install/class-inputs.js';
import { renderTalosConfig, validateTalosConfig } from '../../verifier/install/talos-config.js';
import { fleetCli } from '../fleet-cli.js';
import { SETTINGS, talosSecrets } from './talos-fixture.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

async function files(): Promise<{ dir: string; secrets: string; settings: string; out: string }> {
  dir = await mkdtemp(join(tmpdir(), 'fleet-render-'));
  const secrets = join(dir, 'secrets.yaml');
  const settings = join(dir, 'settings.yaml');
  await writeFile(secrets, stringify(await talosSecrets(join(dir, 'ca'))));
  await writeFile(settings, stringify(SETTINGS));
  return { dir, secrets, settings, out: join(dir, 'class-inputs') };
}

describe('fleet render-class-inputs', () => {
  it("writes each class's inputs, 0600 in a 0700 directory; only the control plane's hold CA keys; each renders a valid config", async () => {
    const f = await files();
    const run = await fleetCli('render-class-inputs', '--secrets', f.secrets, '--settings', f.settings, '--out', f.out);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual([
      `${f.out}/worker: worker inputs written`,
      `${f.out}/controlplane: controlplane inputs written`,
      `${f.out}/api-edge: controlplane inputs written`,
      `${f.out}/nixos: seed inputs written`,
      `${f.out}/alpine: seed inputs written`,
      `${f.out}/cloud: seed inputs written`,
    ]);
    const secrets = parse(await readFile(f.secrets, 'utf8')) as { certs: Record<string, { key: string }> };
    for (const cls of ['worker', 'controlplane']) {
      expect((await stat(join(f.out, cls))).mode & 0o777).toBe(0o700);
      for (const file of ['config.yaml', 'network.yaml']) expect((await stat(join(f.out, cls, file))).mode & 0o777).toBe(0o600);
      const text = await readFile(join(f.out, cls, 'config.yaml'), 'utf8');
      const keys = Object.values(secrets.certs)
        .map((c) => c.key)
        .filter((k) => text.includes(k));
      expect(keys.length).toBe(cls === 'worker' ? 0 : 5);
      const { base, network } = await readClassInputs(f.out, cls);
      const cfg = parse(
        renderTalosConfig(base, network, { hostname: 'n1', address: '10.0.1.11/24', mac: '52:54:00:12:34:56', installDisk: '/dev/sda' }),
      ) as Record<string, unknown>;
      validateTalosConfig(cfg);
      expect(cfg).toMatchObject({ machine: { type: cls }, cluster: { clusterName: 'folly', controlPlane: { endpoint: 'https://10.0.1.10:6443' } } });
    }
  });

  it('refuses what is not a secrets bundle or lacks settings, writing nothing', async () => {
    const f = await files();
    await writeFile(join(f.dir, 'bad.yaml'), 'cluster: {}\n');
    const bad = await fleetCli('render-class-inputs', '--secrets', join(f.dir, 'bad.yaml'), '--settings', f.settings, '--out', f.out);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('is not a talosctl gen secrets bundle');
    expect(bad.stderr).toContain('[render-inputs-invalid]');
    const noGateway = await fleetCli('render-class-inputs', '--secrets', f.secrets, '--settings', f.secrets, '--out', f.out);
    expect(noGateway.code).not.toBe(0);
    expect(noGateway.stderr).toContain('clusterName is missing');
    await expect(stat(f.out)).rejects.toThrow(/ENOENT/);
  });
});

/** The settings example of docs/operations.md, as an operator copies it. */
const DOCS_EXAMPLE = /```yaml\n# cluster-settings\.yaml\n([\s\S]*?)```/.exec(readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8'))![1]!;

describe('fleet render-class-inputs reads its settings strictly', () => {
  it("renders the docs' complete settings example", async () => {
    const f = await files();
    await writeFile(f.settings, DOCS_EXAMPLE);
    const run = await fleetCli('render-class-inputs', '--secrets', f.secrets, '--settings', f.settings, '--out', f.out);
    expect(run, run.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain(`${f.out}/cloud: seed inputs written`);
    expect((await readClassInputs(f.out, 'worker')).network).toMatchObject({ gateway: '10.0.1.1', nameservers: ['10.0.1.1'] });
  });

  it.each([
    [
      'a class type misspelt',
      (s: Record<string, unknown>) => ({ ...s, classes: { w: { type: 'wroker', installerImage: 'x' } } }),
      'classes.w.type is not one of worker, controlplane, seed (it is "wroker")',
    ],
    ['nameservers at the top', (s: Record<string, unknown>) => ({ ...s, nameservers: ['10.0.1.1'] }), 'nameservers is not a setting (network.nameservers is)'],
    ['one key missing', ({ kubernetesVersion: _, ...s }: Record<string, unknown>) => s, 'has 1 problem(s): kubernetesVersion is missing'],
    ['a gateway that is no address', (s: Record<string, unknown>) => ({ ...s, network: { gateway: 'router' } }), 'network.gateway is not an IP address'],
  ])('refuses %s, naming it, and writes nothing', async (_name, change, message) => {
    const f = await files();
    await writeFile(f.settings, stringify(change(parse(DOCS_EXAMPLE) as Record<string, unknown>)));
    const run = await fleetCli('render-class-inputs', '--secrets', f.secrets, '--settings', f.settings, '--out', f.out);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(message);
    expect(run.stderr).toContain('[render-inputs-invalid]');
    await expect(stat(f.out)).rejects.toThrow(/ENOENT/);
  });
});

import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kernelCmdline } from '../../hookos/boot-params.js';
import { generate } from '../../hookos/generate.js';
import { BOOT_NIC_ARGS } from '../../hookos/ipxe.js';
import { fleetCli } from '../fleet-cli.js';
import { labConfig } from './lab.js';

const files = new Map(generate(labConfig()).map((f) => [f.name, f.contents]));
const file = (name: string) => files.get(name)!;

/** The command line a script's chain line passes the UKI, without what iPXE adds at boot. */
const chained = (script: string) => /^chain --autofree \S+ (.*) \|\| goto \S+$/m.exec(script)![1]!.replace(` ${BOOT_NIC_ARGS}`, '');

describe('the generated files', () => {
  it('are the UKI command line, the menu, the Hardware script and the container', () => {
    expect([...files.keys()].sort()).toEqual(['cmdline.txt', 'hardware.ipxe', 'menu.ipxe', 'tink-agent-autoid.container.json']);
  });

  it("carry one command line: the UKI's, the menu's and the Hardware script's are the same", () => {
    const uki = file('cmdline.txt');
    expect(uki).toBe(kernelCmdline(labConfig()));
    expect(chained(file('menu.ipxe'))).toBe(uki);
    expect(chained(file('hardware.ipxe'))).toBe(uki);
  });

  it('start the image and Tink settings the command line names', () => {
    const spec = JSON.parse(file('tink-agent-autoid.container.json')) as { Image: string; Env: string[] };
    const params = new Map(
      file('cmdline.txt')
        .split(' ')
        .map((w) => w.split(/=(.*)/s, 2) as [string, string]),
    );
    expect(spec.Image).toBe(params.get('tink_worker_image'));
    expect(spec.Env).toContain(`TINKERBELL_GRPC_AUTHORITY=${params.get('grpc_authority')}`);
    expect(spec.Env).toContain(`TINKERBELL_TLS=${params.get('tinkerbell_tls')}`);
  });

  it('are what hookos/generated/ holds (generate again after editing hookos/lab.yaml)', async () => {
    const dir = new URL('../../hookos/generated/', import.meta.url);
    expect((await readdir(dir)).sort()).toEqual([...files.keys()].sort());
    for (const [name, contents] of files) expect(await readFile(new URL(name, dir), 'utf8'), name).toBe(contents);
  });
});

describe('fleet hookos generate', () => {
  const dirs: string[] = [];
  afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

  it('writes the files from a config and --set', async () => {
    const out = await mkdtemp(join(tmpdir(), 'fleet-hookos-'));
    dirs.push(out);
    const r = await fleetCli('hookos', 'generate', '--config', 'hookos/lab.yaml', '--out', out, '--set', 'SPORE_BOOTSTRAP_IP=192.0.2.10');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${out}/cmdline.txt written`);
    for (const [name, contents] of files) expect(await readFile(join(out, name), 'utf8')).toBe(contents);
  });

  it('refuses a config it cannot fill, in one line naming what to give', async () => {
    const r = await fleetCli('hookos', 'generate', '--config', 'hookos/lab.yaml', '--out', join(tmpdir(), 'fleet-hookos-never'));
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('fleet: hookos/lab.yaml names ${SPORE_BOOTSTRAP_IP}; give --set SPORE_BOOTSTRAP_IP=VALUE [hookos-config]\n');
  });

  it('refuses a --set that is not NAME=VALUE', async () => {
    const r = await fleetCli('hookos', 'generate', '--config', 'hookos/lab.yaml', '--out', join(tmpdir(), 'fleet-hookos-never'), '--set', 'spore=1');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--set spore=1: expected NAME=VALUE/);
  });
});

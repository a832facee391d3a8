import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { netboxFixture, type NetBoxFixture } from './netbox-fixture.js';

/**
 * A node's host name names its Kubernetes objects, its DNS name and its lines: in both inventories
 * it must be an RFC 1123 host name (labels of 1 to 63 lowercase letters, digits and hyphens, no
 * hyphen first or last; 253 characters in all), or the node is refused, saying why.
 */
const BAD: Array<[string, RegExp]> = [
  ['node\u001b[2J', /character/],
  ['{{.Values.x}}', /character/],
  ['a'.repeat(300), /more than 253/],
  [`${'a'.repeat(64)}.lab`, /more than 63/],
  ['-node', /hyphen/],
  ['node-', /hyphen/],
  ['a..b', /empty label/],
  ['Node-1', /lowercase/],
];

function check(source: string) {
  const dir = mkdtempSync(join(tmpdir(), 'host-names-'));
  try {
    writeFileSync(join(dir, 'nodes.yaml'), source);
    return spawnSync('node_modules/.bin/tsx', ['cli/fleet.ts', 'inventory', 'check', join(dir, 'nodes.yaml')], { encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true });
  }
}

const file = (names: string[]) =>
  `models:\n  m: {}\nclasses:\n  w: { payload: talos, installer_image: x }\nnodes:\n${names.map((n, i) => `  ${JSON.stringify(n)}: { model: m, class: w, serial: S${i} }\n`).join('')}`;

describe('fleet inventory check', () => {
  it('refuses each node whose name is not a host name, saying why, and escapes it', () => {
    const r = check(file(BAD.map(([n]) => n)));
    expect(r.status).toBe(1);
    const out = r.stdout.trim().split('\n');
    expect(out).toHaveLength(BAD.length);
    for (const [i, [, why]] of BAD.entries()) expect(out[i]).toMatch(new RegExp(`: is not a host name .*${why.source}`));
    expect(r.stdout).not.toContain('\u001b');
  });

  it('accepts host names, dotted or not', () => {
    expect(check(file(['node-1', 'n1.rack-2.lab', `${'a'.repeat(63)}`])).status).toBe(0);
  });
});

describe('the NetBox inventory', () => {
  let f: NetBoxFixture;
  afterEach(() => f.close());

  it('refuses a device whose name is not a host name, naming it', async () => {
    f = await netboxFixture();
    f.fake.addDevice({ name: '{{x}}\u001b[2J', serial: 'SN9', status: 'planned', customFields: { class: 'worker' } });
    const refused = { code: 'inventory-invalid', message: expect.stringMatching(/NetBox device \d+'s name "\{\{x\}\}\\u001b\[2J" is not a host name: /) };
    await expect(f.inventory.deviceBySerial('SN9')).rejects.toMatchObject(refused);
    await expect(f.inventory.listDevices()).rejects.toMatchObject(refused);
  });
});

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readNodesFile } from '../../verifier/inventory/embedded/nodes-file.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

const CLEAN = `models:
  m720q: { vendor: Lenovo }
classes:
  worker: { payload: talos, installer_image: "ghcr.io/siderolabs/installer:v1.9.5" }
  controlplane: { payload: talos, installer_image: "ghcr.io/siderolabs/installer:v1.9.5" }
  nixos: { payload: nixos-image, image_url: "https://images.example/nixos.img", image_sha256: ${'c'.repeat(64)} }
nodes:
  node-1:
    model: m720q
    serial: SN1
    class: worker
    switch_port: Port 5
    address: 10.0.1.11/24
    bmc_type: amt
    disk: /dev/nvme0n1
    disk_serial: S4EV1
    approved_ek_rsa2048: ${A}
    approved_ek_eccp256: ${B}
  cp-1:
    model: m720q
    serial: SN2
    class: controlplane
    switch_port: Port 6
    address: 10.0.1.12/24
    disk_serial: S4EV2
`;

/** Every error the runbook's plan step refuses, one per node. */
const BROKEN = `models:
  m720q: {}
classes:
  worker: { payload: talos, installer_image: x }
nodes:
  unknown-model: { model: t480, serial: S1, class: worker }
  unknown-class: { model: m720q, serial: S2, class: gpu }
  addr-a: { model: m720q, serial: S3, class: worker, address: 10.0.1.20/24 }
  addr-b: { model: m720q, serial: S4, class: worker, address: 10.0.1.20/24 }
  port-a: { model: m720q, serial: S5, class: worker, switch_port: Port 9 }
  port-b: { model: m720q, serial: S6, class: worker, switch_port: Port 9 }
  serial-a: { model: m720q, serial: DUP, class: worker }
  serial-b: { model: m720q, serial: DUP, class: worker }
  disk-a: { model: m720q, serial: S7, class: worker, disk_serial: D1 }
  disk-b: { model: m720q, serial: S8, class: worker, disk_serial: D1 }
  ek-a: { model: m720q, serial: S9, class: worker, approved_ek_rsa2048: ${A} }
  ek-b: { model: m720q, serial: S10, class: worker, approved_ek_eccp256: ${A} }
  bad-hash: { model: m720q, serial: S11, class: worker, approved_ek_rsa2048: ${A.toUpperCase()} }
`;

const EXPECTED = [
  'unknown-model: unknown model t480',
  'unknown-class: unknown class gpu',
  'addr-b: address 10.0.1.20/24 is held by addr-a',
  'port-b: switch port Port 9 is held by port-a',
  'serial-b: serial DUP is held by serial-a',
  'disk-b: disk serial D1 is held by disk-a',
  `ek-b: approved EK ${A} is held by ek-a`,
  'bad-hash: approved_ek_rsa2048 is not 64 lowercase hex characters',
];

const show = (source: string) => readNodesFile(source).problems.map((p) => (p.where ? `${p.where}: ${p.message}` : p.message));

describe('the nodes file', () => {
  it('a clean file has no problems and reads every field', () => {
    const { file, problems } = readNodesFile(CLEAN);
    expect(problems).toEqual([]);
    expect(file.nodes.map((n) => n.hostname)).toEqual(['node-1', 'cp-1']);
    expect(file.nodes[0]).toEqual({
      hostname: 'node-1', serial: 'SN1', model: 'm720q', className: 'worker', switchPort: 'Port 5', address: '10.0.1.11/24',
      bmcType: 'amt', disk: '/dev/nvme0n1', diskSerial: 'S4EV1', binding: { rsa2048: A, eccp256: B },
    });
    expect(file.classes.get('controlplane')?.controlPlane).toBe(true);
    expect(file.classes.get('nixos')).toMatchObject({ payload: 'nixos-image', imageUrl: 'https://images.example/nixos.img' });
  });

  it('names every error the plan step refuses, each with its node', () => {
    expect(show(BROKEN)).toEqual(EXPECTED);
  });

  it.each([
    ['a hostname twice', 'nodes:\n  a: {serial: 1}\n  a: {serial: 2}\n', /not valid YAML: Map keys must be unique/],
    ['nodes as a list', 'nodes:\n  - {hostname: a}\n', /nodes: nodes is not a map keyed by host name/],
    ['a typo in a field', 'models: {m: {}}\nclasses: {w: {payload: talos, installer_image: x}}\nnodes:\n  a: {model: m, class: w, serial: 1, disk_serail: x}\n', /a: unknown field disk_serail/],
    ['a class without its image', 'classes:\n  w: {payload: nixos-image}\n', /classes.w: a nixos-image class needs image_url/],
    ['an unknown payload', 'classes:\n  w: {payload: windows}\n', /payload windows is not one of/],
    ['an address without a prefix', 'models: {m: {}}\nclasses: {w: {payload: talos, installer_image: x}}\nnodes:\n  a: {model: m, class: w, serial: 1, address: 10.0.0.1}\n', /is not an address with a prefix length/],
  ])('refuses %s', (_name, source, message) => {
    expect(show(source).join('\n')).toMatch(message);
  });
});

describe('fleet inventory check', () => {
  const check = (source: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'nodes-'));
    try {
      writeFileSync(join(dir, 'nodes.yaml'), source);
      return spawnSync('node_modules/.bin/tsx', ['cli/fleet.ts', 'inventory', 'check', join(dir, 'nodes.yaml')], { encoding: 'utf8' });
    } finally {
      rmSync(dir, { recursive: true });
    }
  };

  it('prints each problem with its node and exits non-zero', () => {
    const r = check(BROKEN);
    expect(r.status).toBe(1);
    expect(r.stdout.trim().split('\n')).toEqual(EXPECTED);
    expect(r.stderr).toMatch(/8 problem\(s\)/);
  });

  it('exits 0 on a clean file', () => {
    const r = check(CLEAN);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/2 node\(s\), 3 class\(es\), 1 model\(s\); no problems/);
  });
});

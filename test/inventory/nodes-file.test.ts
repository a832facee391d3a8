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
      hostname: 'node-1',
      serial: 'SN1',
      model: 'm720q',
      className: 'worker',
      switchPort: 'Port 5',
      address: '10.0.1.11/24',
      bmcType: 'amt',
      disk: '/dev/nvme0n1',
      diskSerial: 'S4EV1',
      binding: { rsa2048: A, eccp256: B },
    });
    expect(file.classes.get('controlplane')?.controlPlane).toBe(true);
    expect(file.classes.get('nixos')).toMatchObject({ payload: 'nixos-image', imageUrl: 'https://images.example/nixos.img' });
  });

  it("reads a class's measured-boot policy, and gives a class without one the default", () => {
    const { file, problems } = readNodesFile(
      `classes:\n  strict: {payload: talos, installer_image: x, secure_boot: required, hookos_images: [${A}, ${B}]}\n  plain: {payload: talos, installer_image: x}\n`,
      'class catalogue',
      { classesOnly: true },
    );
    expect(problems).toEqual([]);
    expect(file.classes.get('strict')?.boot).toEqual({ secureBoot: 'required', hookosImages: [A, B] });
    expect(file.classes.get('plain')?.boot).toEqual({ secureBoot: 'recorded', hookosImages: null });
  });

  it('names every error the plan step refuses, each with its node', () => {
    expect(show(BROKEN)).toEqual(EXPECTED);
  });

  it.each([
    ['a hostname twice', 'nodes:\n  a: {serial: 1}\n  a: {serial: 2}\n', /not valid YAML: duplicated mapping key \(3:3\)/],
    ['a field twice in a node', 'nodes:\n  a: {serial: 1, serial: 2}\n', /not valid YAML: duplicated mapping key \(2:\d+\)/],
    ['an empty file', '', /nodes: nodes file declares no nodes: is it whole\? \(write nodes: \{\} to declare none\)/],
    ['a file cut after its nodes key', 'models: {m: {}}\nnodes:\n', /declares no nodes/],
    ['nodes as a list', 'nodes:\n  - {hostname: a}\n', /nodes: nodes is not a map keyed by host name/],
    [
      'a typo in a field',
      'models: {m: {}}\nclasses: {w: {payload: talos, installer_image: x}}\nnodes:\n  a: {model: m, class: w, serial: 1, disk_serail: x}\n',
      /a: unknown field disk_serail/,
    ],
    ['a class without its image', 'classes:\n  w: {payload: nixos-image}\n', /classes.w: a nixos-image class needs image_url/],
    ['an unknown payload', 'classes:\n  w: {payload: windows}\n', /payload windows is not one of/],
    [
      'a secure_boot that is neither word',
      'classes:\n  w: {payload: talos, installer_image: x, secure_boot: true}\n',
      /classes.w: secure_boot is not required or recorded/,
    ],
    [
      'hookos_images that are not digests',
      'classes:\n  w: {payload: talos, installer_image: x, hookos_images: [abc]}\n',
      /classes.w: hookos_images is not a list of SHA-256 digests/,
    ],
    ['hookos_images empty', 'classes:\n  w: {payload: talos, installer_image: x, hookos_images: []}\n', /classes.w: hookos_images is not a list/],
    [
      'an address with a malformed prefix',
      'models: {m: {}}\nclasses: {w: {payload: talos, installer_image: x}}\nnodes:\n  a: {model: m, class: w, serial: 1, address: 10.0.0.1/33}\n',
      /is not an address with a prefix length/,
    ],
    ['an alias before its anchor', 'nodes:\n  a: *x\n  b: &x {serial: 1}\n', /not valid YAML: unidentified alias "x"/],
    [
      // Aliases stay references: 10^7 lists deep, never expanded, not even to say what is wrong.
      'aliases that would expand without bound, as the node network',
      `a: &a [1, 1]\n${'bcdefgh'
        .split('')
        .map((k, i) => `${k}: &${k} [${Array(10).fill(`*${'abcdefgh'[i]}`).join(', ')}]`)
        .join('\n')}\nnode_network: *h\n`,
      /node_network: node_network \[\.\.\.\] is not a network with a prefix length/,
    ],
  ])('refuses %s', (_name, source, message) => {
    expect(show(source).join('\n')).toMatch(message);
  });
});

/** A lab-style file: the runbook's "<addr> is a free address in K8S_NODE_CIDR", written bare. */
const lab = (nodes: string, head = '') => `${head}models: {m: {}}\nclasses: {w: {payload: talos, installer_image: x}}\nnodes:\n${nodes}`;
const LAB_NODE = '  n1: {model: m, class: w, serial: S1, address: 10.40.0.21}\n';
const read = (source: string, nodeNetwork?: string) => {
  const { file, problems } = readNodesFile(source, 'nodes file', nodeNetwork === undefined ? undefined : { nodeNetwork });
  return { file, problems: problems.map((p) => (p.where ? `${p.where}: ${p.message}` : p.message)) };
};

describe('the node network', () => {
  it('reads a bare address inside node_network: as the address with its prefix', () => {
    const { file, problems } = read(lab(LAB_NODE, 'node_network: 10.40.0.0/24\n'));
    expect(problems).toEqual([]);
    expect(file.nodeNetwork).toBe('10.40.0.0/24');
    expect(file.nodes[0]?.address).toBe('10.40.0.21/24');
  });

  it("reads a bare address inside the caller's network the same way", () => {
    const { file, problems } = read(lab(LAB_NODE), '10.40.0.0/24');
    expect(problems).toEqual([]);
    expect(file.nodes[0]?.address).toBe('10.40.0.21/24');
  });

  it('accepts the same network named in the file and by the caller', () => {
    expect(read(lab(LAB_NODE, 'node_network: 10.40.0.0/24\n'), '10.40.0.0/24').problems).toEqual([]);
  });

  it('says exactly what to do with a bare address when no network is named', () => {
    expect(read(lab(LAB_NODE)).problems).toEqual([
      'n1: address 10.40.0.21 has no prefix length: write it as 10.40.0.21/<prefix>, or name the node network (node_network: in the file, or fleet serve --node-network CIDR)',
    ]);
  });

  it('refuses an address outside the network, bare or with its prefix', () => {
    const nodes = '  n1: {model: m, class: w, serial: S1, address: 10.41.0.21}\n  n2: {model: m, class: w, serial: S2, address: 10.41.0.22/24}\n';
    expect(read(lab(nodes, 'node_network: 10.40.0.0/24\n')).problems).toEqual([
      'n1: address 10.41.0.21 is outside the node network 10.40.0.0/24',
      'n2: address 10.41.0.22/24 is outside the node network 10.40.0.0/24',
    ]);
  });

  it("refuses an address whose prefix is not the network's", () => {
    expect(read(lab('  n1: {model: m, class: w, serial: S1, address: 10.40.0.21/25}\n'), '10.40.0.0/24').problems).toEqual([
      'n1: address 10.40.0.21/25 has prefix length 25, but the node network 10.40.0.0/24 has 24: write 10.40.0.21/24, or leave the prefix off',
    ]);
  });

  it('refuses a file and a caller naming different networks, once', () => {
    expect(read(lab(LAB_NODE, 'node_network: 10.40.0.0/24\n'), '10.41.0.0/24').problems).toEqual([
      'node_network: node_network 10.40.0.0/24 differs from --node-network 10.41.0.0/24: name the node network once, or the same network in both',
    ]);
  });

  it('holds 10.40.0.21 and 10.40.0.21/24 to be the same address', () => {
    const nodes = '  n1: {model: m, class: w, serial: S1, address: 10.40.0.21}\n  n2: {model: m, class: w, serial: S2, address: 10.40.0.21/24}\n';
    expect(read(lab(nodes, 'node_network: 10.40.0.0/24\n')).problems).toEqual(['n2: address 10.40.0.21/24 is held by n1']);
  });

  it.each([
    ['no prefix', '10.40.0.0', 'node_network 10.40.0.0 is not a network with a prefix length (10.40.0.0/24)'],
    ['a bad prefix', '10.40.0.0/33', 'node_network 10.40.0.0/33 is not a network with a prefix length (10.40.0.0/24)'],
    ['not an address', 'lab-net', 'node_network lab-net is not a network with a prefix length (10.40.0.0/24)'],
    ['host bits set', '10.40.0.1/24', 'node_network 10.40.0.1/24 has host bits set: the network is 10.40.0.0/24'],
  ])('refuses a node_network with %s, and nothing else', (_name, network, message) => {
    expect(read(lab(LAB_NODE, `node_network: ${network}\n`)).problems).toEqual([`node_network: ${message}`]);
    expect(read(lab(LAB_NODE), network).problems).toEqual([message.replace('node_network', '--node-network')]);
  });

  it('keeps accepting IPv6, and checks it against an IPv6 network', () => {
    expect(read(lab('  n1: {model: m, class: w, serial: S1, address: "2001:db8::21"}\n'), '2001:db8::/64').file.nodes[0]?.address).toBe('2001:db8::21/64');
    expect(read(lab('  n1: {model: m, class: w, serial: S1, address: "2001:db8:1::21/64"}\n'), '2001:db8::/64').problems).toEqual([
      'n1: address 2001:db8:1::21/64 is outside the node network 2001:db8::/64',
    ]);
    expect(read(lab('  n1: {model: m, class: w, serial: S1, address: "2001:db8::21/64"}\n')).problems).toEqual([]);
  });
});

describe('fleet inventory check', () => {
  const check = (source: string, ...options: string[]) => {
    const dir = mkdtempSync(join(tmpdir(), 'nodes-'));
    try {
      writeFileSync(join(dir, 'nodes.yaml'), source);
      return spawnSync('node_modules/.bin/tsx', ['cli/fleet.ts', 'inventory', 'check', join(dir, 'nodes.yaml'), ...options], { encoding: 'utf8' });
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

  it('checks bare addresses against --node-network', () => {
    expect(check(lab(LAB_NODE)).status).toBe(1);
    const r = check(lab(LAB_NODE), '--node-network', '10.40.0.0/24');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});

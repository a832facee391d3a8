/**
 * The nodes file as fleetd serves it: read once per change, on a worker thread, swapped in whole
 * only when it has no problem; a lookup made after an edit answers from the edit.
 */
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { NodesFileSource, type NodesFileChange } from '../../verifier/inventory/embedded/nodes-file-source.js';
import { nodeEntry } from '../node-entry.js';
import { RIG_CATALOGUE } from '../swtpm/rig.js';

let dir: string;
let path: string;
let changes: NodesFileChange[];
const file = (nodes: Record<string, unknown>) => stringify({ ...RIG_CATALOGUE, nodes });
const ONE = file({ n1: nodeEntry({ serial: 'S1' }) });
const TWO = file({ n1: nodeEntry({ serial: 'S1' }), n2: nodeEntry({ serial: 'S2', address: '10.0.1.12/24', switch_port: 'Port 6', disk_serial: 'D2' }) });
const open = () => new NodesFileSource(path, { onChange: (c) => changes.push(c) });

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fleet-nodes-source-'));
  path = join(dir, 'nodes.yaml');
  changes = [];
  await writeFile(path, ONE);
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('the nodes file as fleetd serves it', () => {
  it('a lookup right after an edit answers from the edit, read once', async () => {
    const src = open();
    expect([...(await src.declarations()).bySerial.keys()]).toEqual(['S1']);
    await writeFile(path, TWO);
    expect([...(await src.declarations()).bySerial.keys()]).toEqual(['S1', 'S2']);
    expect(await src.declarations()).toBe(await src.declarations());
    expect(changes).toEqual([{ outcome: 'reloaded', path, nodes: 2 }]);
  });

  it('a change with problems is refused whole and the last good file served, until the file is fixed or put back', async () => {
    const src = open();
    const good = await src.declarations();
    await writeFile(path, file({ n1: nodeEntry({ serial: 'S1', class: 'wroker' }) }));
    expect(await src.declarations()).toBe(good);
    expect(src.refused()).toMatchObject({ outcome: 'refused', problems: ['n1: unknown class wroker'], kept: 1, keptSince: good.readAt.toISOString() });
    // Asked again, the unchanged broken file is not read again, nor reported again.
    await src.declarations();
    expect(changes).toHaveLength(1);
    // Put back as it was: nothing refused any more.
    await writeFile(path, ONE);
    expect(await src.declarations()).toBe(good);
    expect(src.refused()).toBeNull();
    expect(changes.map((c) => c.outcome)).toEqual(['refused', 'reloaded']);
  });

  it('an unreadable or emptied file keeps the last good one', async () => {
    const src = open();
    await rm(path);
    expect((await src.declarations()).file.nodes).toHaveLength(1);
    expect(src.refused()?.problems).toEqual([expect.stringMatching(/^cannot read the nodes file .*ENOENT/)]);
    await writeFile(path, '');
    expect((await src.declarations()).file.nodes).toHaveLength(1);
    expect(src.refused()?.problems).toEqual([expect.stringContaining('declares no nodes')]);
  });

  it('the watch reads a file an editor renames over the old one, without a lookup', async () => {
    const src = open();
    const unwatch = src.watch();
    try {
      await writeFile(join(dir, '.nodes.yaml.swp'), TWO);
      await rename(join(dir, '.nodes.yaml.swp'), path);
      const deadline = Date.now() + 10_000;
      while (changes.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(changes).toEqual([{ outcome: 'reloaded', path, nodes: 2 }]);
    } finally {
      unwatch();
    }
  });

  it('a file with problems at start is refused: fleetd does not start on it', async () => {
    await writeFile(path, 'nodes: [');
    expect(open).toThrow(/has \d+ problem\(s\); run fleet inventory check: .*not valid YAML/);
  });
});

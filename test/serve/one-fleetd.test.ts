/**
 * One fleetd per state directory, and commands that read never make one: `fleet serve` twice on
 * one --state, the second refused by name; the first SIGKILLed, a third starts (the kernel dropped
 * the lock); `fleet status`, `fleet attest approve` and `fleet inventory` with a mistyped --state.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { fleetCli } from '../fleet-cli.js';
import { startFleetServe } from '../fleet-serve.js';
import { RIG_CATALOGUE } from '../swtpm/rig.js';

let dir: string;
let nodes: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fleet-one-'));
  nodes = join(dir, 'nodes.yaml');
  await writeFile(nodes, stringify({ ...RIG_CATALOGUE, nodes: {} }));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

const serve = (state: string) => startFleetServe(['--nodes', nodes, '--state', state, '--listen', '127.0.0.1:0', '--syslog-listen', 'off']);

describe('one fleetd per state directory', () => {
  it('a second fleetd on the same --state is refused, naming the directory and the first one’s pid; after a SIGKILL the next starts', async () => {
    const state = join(dir, 'state');
    const first = await serve(state);
    try {
      await expect(serve(state)).rejects.toThrow(
        new RegExp(`another fleetd uses the state in ${state} \\(pid ${first.pid}\\): stop it, or give this one another --state`),
      );
    } finally {
      await first.kill();
    }
    const third = await serve(state);
    expect(await third.stop()).toBe(0);
  });
});

describe('commands that only read', () => {
  it.each([
    ['status', ['status', '--nodes', 'NODES', '--state', 'MISSING']],
    ['attest approve', ['attest', 'approve', 'SN-1', '--state', 'MISSING']],
    ['inventory show', ['inventory', 'show', 'node-1', '--nodes', 'NODES', '--state', 'MISSING']],
  ])('%s with a mistyped --state: an error naming the path, and nothing created', async (_name, args) => {
    const missing = join(dir, 'no-such-state');
    const r = await fleetCli(...args.map((a) => (a === 'MISSING' ? missing : a === 'NODES' ? nodes : a)));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`no state database in ${missing}: give --state the directory fleet serve keeps its state in`);
    expect(existsSync(missing)).toBe(false);
  });
});

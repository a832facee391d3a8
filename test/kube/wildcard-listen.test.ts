/**
 * `fleet serve --listen 0.0.0.0:PORT` without `--base-url`, as an operator might start it on the
 * lab's host: its start-up line names the address it was given, and a run it would start has no
 * config URL a node could reach, so the run waits for one rather than wiping a disk for a config
 * the node could never fetch.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { EmbeddedInventory } from '../../verifier/inventory/embedded/embedded.js';
import { openDatabase } from '../../verifier/state/database.js';
import { fleetCli } from '../fleet-cli.js';
import { startFleetServe } from '../fleet-serve.js';
import { nodeEntry } from '../node-entry.js';
import { RIG_CATALOGUE } from '../swtpm/rig.js';
import { selfSigned, tlsFiles } from '../tls-files.js';
import { CrdServer } from './crd-server.js';

let server: CrdServer;
let dir: string;
beforeAll(async () => {
  server = await CrdServer.start();
  dir = await mkdtemp(join(tmpdir(), 'fleet-wildcard-'));
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('fleet serve on every interface, with no --base-url', () => {
  it('says where it listens as given, and starts no run with a loopback config URL', async () => {
    const nodes = join(dir, 'nodes.yaml');
    const state = join(dir, 'state');
    await writeFile(nodes, stringify({ ...RIG_CATALOGUE, nodes: { 'node-1': nodeEntry() } }));
    expect((await fleetCli('inventory', 'action', 'node-1', 'provision', '--nodes', nodes, '--state', state)).code).toBe(0);
    const tls = selfSigned(tlsFiles(dir), { subject: '/CN=fleetd', ips: ['127.0.0.1'] });
    const fleetd = await startFleetServe([
      ...['--nodes', nodes, '--state', state, '--listen', '0.0.0.0:0', '--cert', tls.cert, '--key', tls.key, '--syslog-listen', 'off'],
      ...['--kubeconfig', server.kubeconfigPath, '--namespace', 'tinkerbell', '--reconcile-interval', '1'],
    ]);
    try {
      expect(fleetd.url).toMatch(/^https:\/\/0\.0\.0\.0:\d+$/);
      const db = openDatabase(state);
      const inventory = new EmbeddedInventory(nodes, db);
      try {
        const deadline = Date.now() + 20_000;
        let journal: string[] = [];
        while (Date.now() < deadline && !journal.some((l) => l.includes('lacks'))) {
          await new Promise((r) => setTimeout(r, 300));
          const device = await inventory.deviceByName('node-1');
          journal = device ? (await inventory.journalOf(device)).map((j) => j.message) : [];
        }
        expect(journal).toContainEqual(expect.stringMatching(/^node-1 lacks .*a config URL \(fleet serve --config-url/));
        expect(await server.objects('tinkerbell.org', 'v1alpha1', 'workflows', 'tinkerbell')).toEqual([]);
      } finally {
        db.close();
      }
    } finally {
      await fleetd.stop();
    }
  });
});

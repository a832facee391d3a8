/**
 * `fleet serve` stopped by SIGTERM (systemd's stop, a deploy's restart) leaves its Lease free, so
 * the fleetd that follows reconciles at once rather than waiting out the lease's 60 s.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startFleetServe } from '../fleet-serve.js';
import { RIG_CATALOGUE } from '../swtpm/rig.js';
import { CrdServer } from './crd-server.js';

let server: CrdServer;
let dir: string;
beforeAll(async () => {
  server = await CrdServer.start();
  dir = await mkdtemp(join(tmpdir(), 'fleet-lease-'));
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

const holder = async () => ((await server.get('coordination.k8s.io/v1', 'leases', 'tinkerbell', 'fleetd'))?.spec as { holderIdentity?: string } | undefined)?.holderIdentity;

async function until<T>(what: string, check: () => Promise<T>, ms: number): Promise<NonNullable<T>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('fleetd\'s Lease across a restart', () => {
  it('SIGTERM releases it, and the next fleetd holds it at its first pass', async () => {
    const nodes = join(dir, 'nodes.yaml');
    await writeFile(nodes, stringify({ ...RIG_CATALOGUE, nodes: {} }));
    const args = ['--nodes', nodes, '--state', join(dir, 'state'), '--listen', '127.0.0.1:0', '--syslog-listen', 'off', '--kubeconfig', server.kubeconfigPath, '--namespace', 'tinkerbell', '--reconcile-interval', '1'];
    const first = await startFleetServe(args);
    const a = await until('the first fleetd to hold the Lease', holder, 30_000);
    expect(await first.stop()).toBe(0);
    expect(await holder()).toBe('');
    const second = await startFleetServe(args);
    try {
      const b = await until('the next fleetd to hold the Lease', holder, 10_000);
      expect(b).not.toBe(a);
    } finally {
      await second.stop();
    }
  }, 120_000);
});

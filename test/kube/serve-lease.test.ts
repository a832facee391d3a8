/**
 * `fleet serve` stopped by SIGTERM (systemd's stop, a deploy's restart) leaves its Lease free, so
 * the fleetd that follows reconciles at once rather than waiting out the lease's 60 s; one that
 * was SIGKILLed releases nothing, and the next takes the Lease only once it lapsed.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { fleetCli } from '../fleet-cli.js';
import { startFleetServe } from '../fleet-serve.js';
import { RIG_CATALOGUE } from '../swtpm/rig.js';
import { CrdServer } from './crd-server.js';
import { until } from '../until.js';

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

type LeaseSpec = { holderIdentity?: string; renewTime?: string; acquireTime?: string; leaseDurationSeconds?: number };
const lease = async () => (await server.get('coordination.k8s.io/v1', 'leases', 'tinkerbell', 'fleetd'))?.spec as LeaseSpec | undefined;
const holder = async () => (await lease())?.holderIdentity;

async function serveArgs(): Promise<string[]> {
  const nodes = join(dir, 'nodes.yaml');
  await writeFile(nodes, stringify({ ...RIG_CATALOGUE, nodes: {} }));
  return [
    '--nodes',
    nodes,
    '--state',
    join(dir, 'state'),
    '--listen',
    '127.0.0.1:0',
    '--syslog-listen',
    'off',
    '--kubeconfig',
    server.kubeconfigPath,
    '--namespace',
    'tinkerbell',
    '--reconcile-interval',
    '1',
  ];
}

describe("fleetd's Lease across a restart", () => {
  it('SIGTERM releases it, and the next fleetd holds it at its first pass', async () => {
    const args = await serveArgs();
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

  it("SIGKILL releases nothing: the next fleetd takes it only once the killed one's --lease-duration lapsed", async () => {
    const args = [...(await serveArgs()), '--lease-duration', '4'];
    const first = await startFleetServe(args);
    const a = await until(
      'the first fleetd to hold the Lease',
      async () => {
        const h = await holder();
        return h ? h : null;
      },
      30_000,
    );
    await first.kill();
    const left = (await lease())!;
    expect(left).toMatchObject({ holderIdentity: a, leaseDurationSeconds: 4 });
    const second = await startFleetServe(args);
    try {
      const taken = await until(
        'the next fleetd to hold the Lease',
        async () => {
          const l = await lease();
          return l?.holderIdentity && l.holderIdentity !== a ? l : null;
        },
        20_000,
      );
      // fleetd's own clock wrote both times: the takeover came after the killed one's last renewal had lapsed.
      expect(Date.parse(taken.acquireTime!) - Date.parse(left.renewTime!)).toBeGreaterThan(4000);
    } finally {
      await second.stop();
    }
  }, 120_000);

  it('refuses a Lease no longer than the interval between passes, which would lapse between renewals', async () => {
    const r = await fleetCli('serve', ...(await serveArgs()), '--lease-duration', '1');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('--lease-duration (1 s) must be longer than --reconcile-interval (1 s): the holder renews it once a pass');
  });
});

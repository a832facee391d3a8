import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { stringify } from 'yaml';
import { EmbeddedInventory } from '../verifier/inventory/embedded/embedded.js';
import { KubeClient } from '../verifier/kube/client.js';
import { Reconciler } from '../verifier/reconcile/reconciler.js';
import { openDatabase } from '../verifier/state/database.js';
import { LocalStore } from '../verifier/state/local-store.js';
import { RIG_CATALOGUE } from '../test/swtpm/rig.js';
import { CrdServer } from '../test/kube/crd-server.js';
import { fleetNode, fleetObjects } from './reconcile-fleet.js';
import type { Figure, Suite } from './run.js';

const PASSES = 5;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The fake API server in a child process, seeded with a converged fleet of n nodes. */
async function fakeKube(n: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/kube/fake-kube-main.ts', String(n)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => {
    const r = await lines.next();
    if (r.done) throw new Error('the fake API server exited');
    return JSON.parse(r.value) as Record<string, unknown>;
  };
  const { kubeconfig } = (await next()) as { kubeconfig: string };
  return {
    kubeconfig,
    counts: async () => (child.stdin!.write('counts\n'), (await next()) as Record<string, number>),
    stop: () => new Promise<void>((resolve) => (child.once('exit', () => resolve()), child.stdin!.write('exit\n'))),
  };
}

/**
 * Kubernetes' own CRD server with the real CRDs (its own processes), seeded with the same fleet;
 * it counts no requests.
 */
async function realKube(n: number) {
  const server = await CrdServer.start();
  for (const o of fleetObjects(n, 'tinkerbell')) await server.create(o as never, o.kind === 'Hardware' ? 'hardware' : 'machines');
  return { kubeconfig: server.kubeconfigPath, counts: async () => ({}) as Record<string, number>, stop: () => server.stop() };
}

/** A steady pass (nothing to change) over n devices: writes, API requests, and fleetd's CPU time. */
async function steadyPass(
  n: number,
  api: (n: number) => Promise<Awaited<ReturnType<typeof fakeKube>>> = fakeKube,
): Promise<{ writes: number; cpuMs: number; requests: Record<string, number> }> {
  const dir = await mkdtemp(join(tmpdir(), 'fleet-bench-reconcile-'));
  const kube = await api(n);
  const db = openDatabase(join(dir, 'state'));
  try {
    const nodes: Record<string, Record<string, unknown>> = {};
    const insert = db.prepare('INSERT INTO device_state (hostname, mac) VALUES (?, ?)');
    db.transaction(() => {
      for (let i = 1; i <= n; i++) {
        const { hostname, entry, mac } = fleetNode(i);
        nodes[hostname] = entry;
        insert.run(hostname, mac);
      }
    })();
    await writeFile(join(dir, 'nodes.yaml'), stringify({ ...RIG_CATALOGUE, nodes }));
    const parts = {
      kube: KubeClient.fromFile(kube.kubeconfig, 'tinkerbell'),
      inventory: new EmbeddedInventory(join(dir, 'nodes.yaml'), db),
      store: new LocalStore(db),
      classInputs: async () => null,
    };
    const reconciler = new Reconciler(parts, {
      namespace: 'tinkerbell',
      hookosWaitS: 600,
      defaultGlobalTimeoutS: 3600,
      corroborationS: 600,
    });
    const warm = await reconciler.pass();
    if (warm.error || warm.writes) throw new Error(`the seeded fleet is not converged: ${warm.error ?? `${warm.writes} writes`}`);
    await kube.counts();
    const cpu: number[] = [];
    let writes = 0;
    for (let i = 0; i < PASSES; i++) {
      const before = process.cpuUsage();
      const r = await reconciler.pass();
      const used = process.cpuUsage(before);
      if (r.error) throw new Error(r.error);
      writes += r.writes;
      cpu.push((used.user + used.system) / 1000);
    }
    const total = await kube.counts();
    const requests = Object.fromEntries(Object.entries(total).map(([k, v]) => [k, v / PASSES]));
    return { writes, cpuMs: median(cpu), requests };
  } finally {
    db.close();
    await kube.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

export const suite: Suite = {
  title: "reconcile: a steady pass over a converged fleet (fleetd's process only; the API server in another)",
  async run(): Promise<Figure[]> {
    const small = await steadyPass(1000);
    const real = await steadyPass(1000, realKube);
    const large = await steadyPass(10_000);
    const show = (r: Record<string, number>) =>
      Object.entries(r)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
    return [
      { name: 'reconcile_1000_writes', value: small.writes, unit: 'writes', goal: '0', note: `over ${PASSES} passes` },
      { name: 'reconcile_1000_cpu_ms', value: small.cpuMs, unit: 'ms', goal: '< 200', note: `median of ${PASSES}; requests a pass: ${show(small.requests)}` },
      { name: 'reconcile_1000_requests', value: Object.values(small.requests).reduce((a, b) => a + b, 0), unit: 'requests' },
      { name: 'reconcile_1000_real_api_writes', value: real.writes, unit: 'writes', goal: '0', note: "against Kubernetes' own CRD server with the real CRDs" },
      {
        name: 'reconcile_1000_real_api_cpu_ms',
        value: real.cpuMs,
        unit: 'ms',
        goal: '< 200',
        note: `median of ${PASSES}, the same fleet on the real CRD server`,
      },
      {
        name: 'reconcile_1000_cpu_real_api_over_fake',
        value: real.cpuMs / small.cpuMs,
        unit: 'x',
        note: "the same pass, side by side: what the real server's answers cost fleetd",
      },
      { name: 'reconcile_10000_writes', value: large.writes, unit: 'writes', goal: '0' },
      { name: 'reconcile_10000_cpu_ms', value: large.cpuMs, unit: 'ms', note: `median of ${PASSES}; requests a pass: ${show(large.requests)}` },
      { name: 'reconcile_cpu_growth_10000_vs_1000', value: large.cpuMs / small.cpuMs, unit: 'x', note: 'linear is 10' },
    ];
  },
};

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import type { Device } from '../../verifier/inventory/device.js';
import { EmbeddedInventory } from '../../verifier/inventory/embedded/embedded.js';
import { KubeClient } from '../../verifier/kube/client.js';
import type { ReconcileConfig } from '../../verifier/reconcile/plan.js';
import { Reconciler } from '../../verifier/reconcile/reconciler.js';
import { Metrics } from '../../verifier/metrics.js';
import { openDatabase, type Db } from '../../verifier/state/database.js';
import { LocalStore } from '../../verifier/state/local-store.js';
import { ApiProxy } from '../kube/api-proxy.js';
import type { CrdServer } from '../kube/crd-server.js';
import { nodeEntry } from '../node-entry.js';
import { RIG_CATALOGUE } from '../swtpm/rig.js';

let harnesses = 0;

export interface Harness {
  /** Kubernetes' own CRD server (shared by the test file), through a proxy that records and injects faults. */
  server: CrdServer;
  api: ApiProxy;
  /** This harness's namespace on the shared server. */
  ns: string;
  kube: KubeClient;
  inventory: EmbeddedInventory;
  store: LocalStore;
  db: Db;
  reconciler: Reconciler;
  metrics: Metrics;
  /** The test's clock, in ms. */
  now: { t: number };
  config: ReconcileConfig;
  writeNodes(nodes: Record<string, Record<string, unknown>>): Promise<void>;
  device(name?: string): Promise<Device>;
  /** Plays the agent: the device attested `agoMs` ago from this MAC. */
  attested(name: string, agoMs: number, mac?: string): Promise<void>;
  journal(name?: string): Promise<string[]>;
  /** Write requests the API server saw, by verb and resource, since `since` requests. */
  writes(since?: number): string[];
  /** The objects of a resource in this harness's namespace, as the server holds them. */
  objects(
    group: string,
    plural: string,
  ): Promise<Array<{ metadata: { name: string; labels?: Record<string, string> }; spec?: Record<string, unknown>; status?: Record<string, unknown> }>>;
  /** Writes an object's status as its controller does (Tinkerbell, Rufio). */
  status(group: string, plural: string, name: string, status: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

export async function harness(server: CrdServer, nodes: Record<string, Record<string, unknown>> = { 'node-1': nodeEntry() }): Promise<Harness> {
  const dir = await mkdtemp(join(tmpdir(), 'fleet-reconcile-'));
  const ns = `reconcile-${(harnesses++).toString(36)}-${process.pid}`;
  const api = await ApiProxy.start(server, dir);
  const kube = KubeClient.fromFile(api.kubeconfigPath, ns);
  const nodesPath = join(dir, 'nodes.yaml');
  const writeNodes = (n: Record<string, Record<string, unknown>>) => writeFile(nodesPath, stringify({ ...RIG_CATALOGUE, nodes: n }));
  await writeNodes(nodes);
  const db = openDatabase(join(dir, 'state'));
  const inventory = new EmbeddedInventory(nodesPath, db);
  const store = new LocalStore(db);
  // The API server stamps creationTimestamp with its own clock; the test's clock starts there too.
  const now = { t: Math.floor(Date.now() / 1000) * 1000 };
  const config: ReconcileConfig = {
    namespace: ns,
    hookosWaitS: 600,
    defaultGlobalTimeoutS: 3600,
    corroborationS: 600,
    configUrl: 'https://fleetd.lab:8443/v1/config',
    seedUrl: 'https://fleetd.lab:8443/v1/seed',
  };
  const metrics = new Metrics();
  // The class inputs are there (as fleet render-class-inputs leaves them) unless a test says otherwise.
  const reconciler = new Reconciler({ kube, inventory, store, metrics, now: () => new Date(now.t), classInputs: async () => null }, config);
  // Flux has applied the Templates, as in the lab.
  for (const file of ['provision.yaml', 'provision-image.yaml']) {
    const t = parse(await readFile(new URL(`../../images/templates/${file}`, import.meta.url), 'utf8')) as { metadata: { namespace: string } };
    t.metadata.namespace = ns;
    await server.create(t as never, 'templates');
  }
  const device = async (name = 'node-1') => (await inventory.deviceByName(name))!;
  return {
    server,
    api,
    ns,
    kube,
    inventory,
    store,
    db,
    reconciler,
    metrics,
    now,
    config,
    writeNodes,
    device,
    async attested(name, agoMs, mac = '52:54:00:12:34:56') {
      await inventory.recordAttested(await device(name), {
        at: new Date(now.t - agoMs).toISOString(),
        mac,
        bootId: 'b',
        eks: {},
        secureBoot: true,
        switchPort: 'Port 5',
      });
    },
    async journal(name = 'node-1') {
      return (await inventory.journalOf(await device(name))).map((j) => `${j.kind}: ${j.message}`);
    },
    writes(since = 0) {
      return api.requests
        .slice(since)
        .filter((r) => !['get', 'list', 'watch'].includes(r.verb))
        .map((r) => `${r.verb} ${r.resource}${r.name ? ` ${r.name}` : ''}`);
    },
    objects: async (group, plural) => (await server.objects(group, 'v1alpha1', plural, ns)) as never,
    status: (group, plural, name, status) => server.writeStatus(`${group}/v1alpha1`, plural, ns, name, status),
    async close() {
      db.close();
      await api.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

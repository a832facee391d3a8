import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { get } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { AttestationService } from '../../verifier/attest/service.js';
import { buildServer, DOC_PATHS, listen } from '../../verifier/http/server.js';
import { ConfigStore, type DocKind } from '../../verifier/install/config-store.js';
import type { Device } from '../../verifier/inventory/device.js';
import { EmbeddedInventory } from '../../verifier/inventory/embedded/embedded.js';
import type { Inventory } from '../../verifier/inventory/inventory.js';
import { openDatabase, type Db } from '../../verifier/state/database.js';
import { LocalStore } from '../../verifier/state/local-store.js';
import { nodeEntry } from '../node-entry.js';
import { RIG_CATALOGUE } from '../swtpm/rig.js';
import { testInstalls, type TestInstalls } from './talos-fixture.js';
import { readPem, selfSigned, tlsFiles } from '../tls-files.js';

/**
 * fleetd's document endpoints (`/v1/config/<code>`, `/v1/seed/<code>`) through real HTTPS on
 * loopback, with node-1 declared in a class of the rig's catalogue. Codes are issued with
 * Installs.issue, as an admitted attestation does (test/swtpm and test/loop cover that path).
 */
export interface Env {
  dir: string;
  db: Db;
  inventory: EmbeddedInventory;
  store: LocalStore;
  t: TestInstalls;
  url: string;
  ca: string;
  port: number;
  audits: Array<Record<string, unknown>>;
  clock: { now: number };
  close(): Promise<void>;
}

export async function start(opts: { failInventory?: () => boolean; failRelease?: boolean; className?: string; ackDeadlineMs?: number } = {}): Promise<Env> {
  const dir = await mkdtemp(join(tmpdir(), 'fleet-config-'));
  const tls = selfSigned(tlsFiles(dir), { subject: '/CN=fleetd', ips: ['127.0.0.1'] });
  await writeFile(
    join(dir, 'nodes.yaml'),
    stringify({ ...RIG_CATALOGUE, nodes: { 'node-1': nodeEntry({ class: opts.className ?? 'worker', bmc_type: null }) } }),
  );
  const db = openDatabase(join(dir, 'state'));
  const embedded = new EmbeddedInventory(join(dir, 'nodes.yaml'), db);
  // The inventory as NetBox would behave: answering, or not.
  const down = new Error('connect ECONNREFUSED capsule:443');
  const inventory: Inventory = new Proxy(embedded, {
    get: (target, prop, recv) =>
      (prop === 'deviceByName' && opts.failInventory?.()) || (prop === 'setStatus' && opts.failRelease)
        ? async () => Promise.reject(down)
        : Reflect.get(target, prop, recv),
  });
  const store = new LocalStore(db);
  const audits: Array<Record<string, unknown>> = [];
  const audit = (event: string, fields: Record<string, unknown>) => audits.push({ audit: event, ...fields });
  const clock = { now: Date.now() };
  const t = await testInstalls(dir, inventory, store, audit, {
    configs: new ConfigStore(() => clock.now),
    now: () => new Date(clock.now),
    ackDeadlineMs: opts.ackDeadlineMs ?? 2000,
  });
  const service = new AttestationService({ inventory, store, audit, installs: t.installs, metrics: t.metrics });
  const app = buildServer({
    service,
    installs: t.installs,
    metrics: t.metrics,
    tls: readPem(tls),
  });
  const url = await listen(app, { host: '127.0.0.1', port: 0 }, true);
  return {
    dir,
    db,
    inventory: embedded,
    store,
    t,
    url,
    audits,
    clock,
    ca: tls.cert,
    port: Number(new URL(url).port),
    async close() {
      await app.close();
      db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The run the codes are for: a provision fleetd started. */
export const RUN = { run: 'provision-node-1-1700000000', kind: 'provision' as const };
export const device = async (e: Env): Promise<Device> => (await e.inventory.deviceByName('node-1'))!;

export async function issue(e: Env): Promise<string> {
  const issued = await e.t.installs.issue(await device(e), { bootId: 'boot-1', mac: '52:54:00:12:34:56', uuid: null }, RUN, 'req-1');
  if (!('code' in issued)) throw new Error(issued.refused);
  return issued.code;
}

/** GET `<url>/v1/config/<code>` (or `/v1/seed/<code>`) over HTTPS from `from` (a loopback address), trusting the test CA only. */
export function fetch(
  e: Env,
  code: string,
  kind: DocKind = 'config',
  from?: string,
): Promise<{ status: number; body: string; bytes: Buffer; type: string | undefined; retryAfter: string | undefined }> {
  return new Promise((resolve, reject) => {
    get(`${e.url}${DOC_PATHS[kind]}/${code}`, { ca: readFileSyncCached(e.ca), ...(from ? { localAddress: from, agent: false } : {}) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        const retryAfter = res.headers['retry-after'];
        resolve({ status: res.statusCode ?? 0, body: bytes.toString('utf8'), bytes, type: res.headers['content-type'], retryAfter });
      });
    }).on('error', reject);
  });
}
const cache = new Map<string, Buffer>();
function readFileSyncCached(p: string): Buffer {
  if (!cache.has(p)) cache.set(p, execFileSync('cat', [p]));
  return cache.get(p)!;
}

export const run = async (cmd: string, args: string[]) => (await promisify(execFile)(cmd, args, { timeout: 20_000 })).stdout;
export const journal = async (e: Env) => (await e.inventory.journalOf(await device(e))).map((j) => `${j.kind}: ${j.message}`);
export const settle = () => new Promise((r) => setTimeout(r, 250));
export const metric = async (e: Env, name: string) => (await e.t.metrics.registry.getSingleMetricAsString(name)).split('\n').filter((l) => l.startsWith(name));

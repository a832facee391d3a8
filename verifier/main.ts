import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { FleetError } from '../shared/errors.js';
import { AttestationService } from './attest/service.js';
import { SessionStore } from './attest/session-store.js';
import { createAudit } from './audit.js';
import { parseListenAddress } from './http/listen-address.js';
import { buildServer, DOC_PATHS, listen } from './http/server.js';
import { INVENTORY_OPTIONS, INVENTORY_USAGE, openInventory } from './inventory/open.js';
import { openDatabase } from './state/database.js';
import { LocalStore } from './state/local-store.js';
import type { Server as TlsServer } from 'node:tls';
import { loadTls, watchTls } from './http/tls-reload.js';
import { ConfigStore } from './install/config-store.js';
import { Installs } from './install/installs.js';
import { TargetClusterClient } from './kube/target-cluster.js';
import { Metrics } from './metrics.js';
import type { Audit } from './audit.js';
import type { Inventory } from './inventory/inventory.js';
import { KubeClient } from './kube/client.js';
import { Controller } from './reconcile/controller.js';
import { LeaderLease } from './reconcile/lease.js';
import { KubeRuns } from './reconcile/open-run.js';
import { Reconciler } from './reconcile/reconciler.js';
import { SYSLOG_OPTIONS, SYSLOG_USAGE, startSyslog } from './syslog/serve-options.js';

export const USAGE = `usage: fleet serve --state DIR (--nodes FILE | --netbox-url URL ...) [options]
  --state DIR         fleetd's own state (SQLite): waiting claims, install code hashes, and the
                      embedded inventory's device state and journal
${INVENTORY_USAGE}
  --auto-provision    start a planned worker's provision when it first attests
  --listen HOST:PORT  default 127.0.0.1:8443; anything but loopback needs --cert and --key
  --cert FILE --key FILE  PEM certificate chain and key: serve HTTPS
  --metrics-from ADDR[/PREFIX],...  who besides loopback may read /metrics (its labels name nodes)
  --session-ttl SEC   how long a started attestation may take to finish (default 60)
  --kubeconfig FILE   Tinkerbell's API (client certificate): reconcile Hardware, Machines and Workflows
  --namespace NS      Tinkerbell's namespace (default tinkerbell)
  --reconcile-interval SEC  between passes (default 30); an attestation that asks for a run starts one at once
  --lease-duration SEC  how long the Lease outlives its holder's last pass before another fleetd may take
                      over (default 60; a clean stop releases it at once)
  --hookos-wait SEC   how long a machine that attested with an intake's code still waits in HookOS, so
                      that its run starts there with no power cycle (default 600)
  --base-url URL      fleetd's URL as the nodes reach it (the kernel command line's fleet_attest_url);
                      default: the URL it listens on, unless that is a wildcard address
  --seed-url URL      where a disk-image node fetches its seed: <URL>/<code> (default <base-url>/v1/seed)
  --config-url URL    where an installed Talos node fetches its config: talos.config=<URL>/<code>
                      (default <base-url>/v1/config); without either, no run starts (the journal says so)
  --class-inputs DIR  each class's inputs (fleet render-class-inputs): a Talos class's, a disk-image class's seed's
  --target-kubeconfig FILE  the cluster nodes join: each node gets its own bootstrap token there
  --config-ttl SEC    FLEET_CONFIG_TTL: how long a rendered config or seed waits for its node (default 3600)
${SYSLOG_USAGE}`;

/** `fleet serve`: runs the verifier until SIGTERM or SIGINT. */
export async function serve(args: string[], onListening: (url: string) => void = (u) => console.error(`fleetd: listening on ${u}`)): Promise<number> {
  const { values: o } = parseArgs({
    args,
    options: {
      ...INVENTORY_OPTIONS,
      ...SYSLOG_OPTIONS,
      state: { type: 'string' },
      'auto-provision': { type: 'boolean', default: false },
      listen: { type: 'string', default: '127.0.0.1:8443' },
      'metrics-from': { type: 'string' },
      cert: { type: 'string' },
      key: { type: 'string' },
      'session-ttl': { type: 'string', default: '60' },
      kubeconfig: { type: 'string' },
      namespace: { type: 'string', default: 'tinkerbell' },
      'reconcile-interval': { type: 'string', default: '30' },
      'lease-duration': { type: 'string', default: '60' },
      'hookos-wait': { type: 'string', default: '600' },
      'base-url': { type: 'string' },
      'seed-url': { type: 'string' },
      'config-url': { type: 'string' },
      'class-inputs': { type: 'string' },
      'target-kubeconfig': { type: 'string' },
      'config-ttl': { type: 'string', default: process.env.FLEET_CONFIG_TTL ?? '3600' },
      help: { type: 'boolean' },
    },
  });
  if (o.help) {
    console.log(USAGE);
    return 0;
  }
  if (!o.state) throw new FleetError('usage', `--state is required\n${USAGE}`);
  if (!o.cert !== !o.key) throw new FleetError('usage', '--cert and --key go together');
  const ttl = Number(o['session-ttl']);
  if (!(ttl > 0)) throw new FleetError('usage', '--session-ttl must be a positive number of seconds');
  const timing = passTiming(o);

  const db = openDatabase(o.state);
  const inventory = await openInventory(o, db);
  const store = new LocalStore(db);
  const audit = createAudit();
  const metrics = new Metrics();
  const installs = new Installs({
    inventory,
    store,
    configs: new ConfigStore(),
    audit,
    metrics,
    configTtlMs: seconds(o['config-ttl'], 'config-ttl') * 1000,
    ...(o['class-inputs'] ? { classInputsDir: o['class-inputs'] } : {}),
    ...(o['target-kubeconfig'] ? { target: TargetClusterClient.fromFile(o['target-kubeconfig']) } : {}),
  });
  const kube = o.kubeconfig ? KubeClient.fromFile(o.kubeconfig, o.namespace ?? 'tinkerbell') : undefined;
  let controller: Controller | undefined;
  const service = new AttestationService({
    inventory,
    store,
    audit,
    installs,
    metrics,
    ...(kube ? { runs: new KubeRuns(kube) } : {}),
    sessions: new SessionStore(ttl * 1000),
    autoProvision: o['auto-provision'],
    onRunWanted: () => void controller?.trigger(),
  });
  const files = o.cert && o.key ? { certPath: o.cert, keyPath: o.key } : undefined;
  const tls = files ? loadTls(files) : undefined;
  const metricsFrom = o['metrics-from']
    ? o['metrics-from']
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean)
    : [];
  const app = buildServer({ service, installs, metrics, metricsFrom, ...(tls ? { tls } : {}), logger: { level: logLevel() } });
  const url = await listen(app, parseListenAddress(o.listen), !!tls);
  const urls = documentUrls(o, url);
  // After listen: the URLs a run carries may default to where fleetd listens.
  if (kube) controller = startReconciler(o, timing, urls, kube, inventory, store, installs, audit, metrics);
  // A receiver that cannot start stops fleetd, and an open HTTP server would keep it alive.
  const syslog = await startSyslog(o, metrics, audit).catch(async (err: unknown) => {
    await app.close();
    throw err;
  });
  onListening(url);
  let unwatch = (): void => undefined;
  if (files && tls) {
    metrics.setCertificate(tls.notAfter);
    unwatch = watchTls(
      app.server as unknown as TlsServer,
      files,
      (notAfter) => metrics.setCertificate(notAfter),
      (message) => audit('fleet.tls', { outcome: 'kept', reason: message }),
    );
  }
  await new Promise<void>((resolve) => {
    const stop = () => void app.close().then(() => resolve());
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  unwatch();
  await syslog?.close();
  await controller?.stop();
  await inventory.close();
  db.close();
  return 0;
}

/** FLEET_LOG_LEVEL: fastify's request log (pino levels); `warn` by default. Config paths are never logged. */
function logLevel(): string {
  const level = process.env.FLEET_LOG_LEVEL ?? 'warn';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(level))
    throw new FleetError('usage', `FLEET_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (not ${level})`);
  return level;
}

function seconds(v: string | undefined, name: string): number {
  const n = Number(v);
  if (!(n > 0)) throw new FleetError('usage', `--${name} must be a positive number of seconds`);
  return n;
}

/** Where a run's node fetches its config or seed: as given, or under fleetd's own base URL. */
function documentUrls(
  o: { 'base-url'?: string | undefined; 'config-url'?: string | undefined; 'seed-url'?: string | undefined },
  listening: string,
): { configUrl?: string; seedUrl?: string } {
  const host = new URL(listening).hostname;
  const base = (o['base-url'] ?? (host === '0.0.0.0' || host === '[::]' ? undefined : listening))?.replace(/\/+$/, '');
  const configUrl = o['config-url'] ?? (base && `${base}${DOC_PATHS.config}`);
  const seedUrl = o['seed-url'] ?? (base && `${base}${DOC_PATHS.seed}`);
  return { ...(configUrl ? { configUrl } : {}), ...(seedUrl ? { seedUrl } : {}) };
}

/** How often the reconciler passes, and how long its Lease outlives the last pass. */
function passTiming(o: { 'reconcile-interval'?: string | undefined; 'lease-duration'?: string | undefined }): { intervalS: number; leaseS: number } {
  const intervalS = seconds(o['reconcile-interval'], 'reconcile-interval');
  const leaseS = seconds(o['lease-duration'], 'lease-duration');
  // The holder renews the Lease once a pass: a Lease shorter than the interval lapses between passes.
  if (leaseS <= intervalS)
    throw new FleetError('usage', `--lease-duration (${leaseS} s) must be longer than --reconcile-interval (${intervalS} s): the holder renews it once a pass`);
  return { intervalS, leaseS };
}

/** The reconciler, on its interval, writing only while this fleetd holds the Lease. */
function startReconciler(
  o: { 'hookos-wait'?: string | undefined },
  timing: { intervalS: number; leaseS: number },
  urls: { configUrl?: string; seedUrl?: string },
  kube: KubeClient,
  inventory: Inventory,
  store: LocalStore,
  installs: Installs,
  audit: Audit,
  metrics: Metrics,
): Controller {
  const reconciler = new Reconciler(
    { kube, inventory, store, metrics, classInputs: (c) => installs.classInputsProblem(c) },
    {
      namespace: kube.namespace,
      hookosWaitS: seconds(o['hookos-wait'], 'hookos-wait'),
      defaultGlobalTimeoutS: 3600,
      corroborationS: 600,
      ...urls,
    },
  );
  const lease = new LeaderLease(kube, `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`, 'fleetd', timing.leaseS);
  const controller = new Controller(reconciler, { intervalMs: timing.intervalS * 1000, lease, log: (l) => audit(String(l.event), l) });
  controller.start();
  return controller;
}

import { lockStateDir } from './state/state-lock.js';
import { DEFAULT_GUESS_LIMITS, GuessLimit } from './install/guess-limit.js';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { AttestationService } from './attest/service.js';
import { SessionStore } from './attest/session-store.js';
import { createAudit } from './audit.js';
import { documentUrls } from './http/document-urls.js';
import { buildServer, listen } from './http/server.js';
import { parseServeConfig, type ReconcilerConfig, type ServeConfig } from './config/serve-config.js';
import { serveUsage } from './config/serve-options.js';
import { openInventory } from './inventory/open.js';
import { EmbeddedInventory } from './inventory/embedded/embedded.js';
import type { NodesFileChange } from './inventory/embedded/nodes-file-source.js';
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
import { Parts, untilStopped } from './parts.js';
import { startSyslog } from './syslog/serve-receiver.js';

/** `fleet serve`: runs the verifier until SIGTERM or SIGINT. */
export async function serve(args: string[], onListening: (url: string) => void = (u) => console.error(`fleetd: listening on ${u}`)): Promise<number> {
  const cfg = parseServeConfig(args, process.env);
  if (cfg === 'help') {
    console.log(serveUsage());
    return 0;
  }

  const parts = new Parts();
  // SIGHUP would end fleetd; it reads the inventory again instead (start() sets what it does).
  const hangUp = new HangUp();
  process.on('SIGHUP', hangUp.handle);
  try {
    await start(cfg, parts, onListening, hangUp);
    const signal = await untilStopped();
    console.error(`fleetd: ${signal}: stopping ${parts.names().join(', ')}, in that order`);
    await parts.stopAll();
    console.error('fleetd: stopped');
  } finally {
    process.off('SIGHUP', hangUp.handle);
    await parts.stopAll();
  }
  return 0;
}

/** What SIGHUP does: nothing until fleetd's parts are up, then re-read the inventory. */
class HangUp {
  action: () => void = () => console.error('fleetd: SIGHUP: still starting; nothing to read again yet');
  readonly handle = () => this.action();
}

/** The embedded inventory's nodes-file changes, each audited and counted as it is read. */
function nodesFileChanges(audit: Audit, metrics: Metrics): (change: NodesFileChange) => void {
  return (change) => {
    metrics.inventoryChanges.labels(change.outcome).inc();
    metrics.inventoryChangeRefused.set(change.outcome === 'refused' ? 1 : 0);
    audit('fleet.inventory', change);
  };
}

/** What /healthz says is wrong while fleetd still serves: a nodes-file change it refused. */
function degraded(inventory: Inventory): () => string[] {
  return () => {
    const refused = inventory instanceof EmbeddedInventory ? inventory.nodes.refused() : null;
    if (!refused) return [];
    const [first, ...more] = refused.problems;
    return [
      `the nodes file ${refused.path} changed at ${refused.at.toISOString()} and was refused (${first}${more.length ? `; and ${more.length} more problem(s)` : ''}): fleetd serves the ${refused.kept} node(s) it read at ${refused.keptSince}`,
    ];
  };
}

/**
 * fleetd's parts, each registered as it starts: state, inventory, HTTP, the reconciler (after
 * listen: the URLs a run carries may default to where fleetd listens), the syslog receiver and
 * the certificate watch. They stop in the reverse order, so the Lease is released and the
 * inventory closed after the last request was answered.
 */
async function start(cfg: ServeConfig, parts: Parts, onListening: (url: string) => void, hangUp: HangUp): Promise<void> {
  parts.add('state lock', await lockStateDir(cfg.stateDir), (l) => l.release());
  const db = parts.add('state', openDatabase(cfg.stateDir), (d) => d.close());
  const audit = createAudit();
  const metrics = new Metrics();
  const inventory = parts.add('inventory', await openInventory(cfg.inventory, db, nodesFileChanges(audit, metrics)), (i) => i.close());
  if (inventory instanceof EmbeddedInventory) {
    const nodes = inventory.nodes;
    parts.add('nodes-file watch', nodes.watch(), (unwatch) => unwatch());
    hangUp.action = () => {
      console.error(`fleetd: SIGHUP: reading ${nodes.path} again`);
      void nodes.reload();
    };
  } else hangUp.action = () => console.error('fleetd: SIGHUP: NetBox is read at each lookup; nothing to read again');
  const store = new LocalStore(db, undefined, cfg.http.groups);
  const installs = new Installs({
    inventory,
    store,
    configs: new ConfigStore(),
    audit,
    metrics,
    configTtlMs: cfg.install.configTtlMs,
    guesses: new GuessLimit({ ...DEFAULT_GUESS_LIMITS, groups: cfg.http.groups }),
    ...(cfg.install.classInputsDir ? { classInputsDir: cfg.install.classInputsDir } : {}),
    ...(cfg.install.targetKubeconfig ? { target: TargetClusterClient.fromFile(cfg.install.targetKubeconfig) } : {}),
  });
  const kube = cfg.reconcile ? KubeClient.fromFile(cfg.reconcile.kubeconfig, cfg.reconcile.namespace) : undefined;
  let controller: Controller | undefined;
  const service = new AttestationService({
    inventory,
    store,
    audit,
    installs,
    metrics,
    ...(kube ? { runs: new KubeRuns(kube, store) } : {}),
    sessions: new SessionStore(cfg.http.sessionTtlMs, { groups: cfg.http.groups }),
    autoProvision: cfg.install.autoProvision,
    onRunWanted: () => void controller?.trigger(),
  });
  const files = cfg.http.tls;
  const tls = files ? loadTls(files) : undefined;
  const app = buildServer({
    service,
    installs,
    metrics,
    metricsFrom: cfg.http.metricsFrom,
    connections: { groups: cfg.http.groups },
    degraded: degraded(inventory),
    ...(tls ? { tls } : {}),
    logger: { level: cfg.http.logLevel },
  });
  const url = parts.add('http', await listen(app, cfg.http.listen, !!tls), () => app.close());
  if (kube && cfg.reconcile) {
    const started = startReconciler(cfg.reconcile, documentUrls(cfg.install, cfg.http.listen, url), kube, inventory, store, installs, audit, metrics);
    controller = parts.add('reconciler', started, (c) => c.stop());
  }
  parts.add('syslog', await startSyslog(cfg.syslog, metrics.syslog, audit), (r) => r?.close());
  if (files && tls) {
    metrics.setCertificate(tls.notAfter);
    const unwatch = watchTls(
      app.server as unknown as TlsServer,
      files,
      (notAfter) => metrics.setCertificate(notAfter),
      (message) => audit('fleet.tls', { outcome: 'kept', reason: message }),
    );
    parts.add('certificate watch', unwatch, (u) => u());
  }
  onListening(url);
}

/** The reconciler, on its interval, writing only while this fleetd holds the Lease. */
function startReconciler(
  timing: ReconcilerConfig,
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
      hookosWaitS: timing.hookosWaitS,
      defaultGlobalTimeoutS: 3600,
      corroborationS: 600,
      ...urls,
    },
  );
  const lease = new LeaderLease(kube, `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`, 'fleetd', timing.leaseS);
  const controller = new Controller(reconciler, { intervalMs: timing.intervalS * 1000, lease, audit });
  controller.start();
  return controller;
}

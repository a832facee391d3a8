import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { SyslogMetrics } from './syslog/syslog-metrics.js';

/**
 * fleetd's Prometheus metrics. Labels carry node names, verdicts and outcomes, never a code, a
 * token or a serial. Counters the alerts watch are created at 0 for a node when its code is issued,
 * so the first event moves `increase()` (a series born at 1 would not).
 */
export class Metrics {
  readonly registry = new Registry();
  readonly verdicts = new Counter({
    name: 'fleet_attest_verdicts_total',
    help: 'Attestations finished, by verdict and the node whose serial they claimed (unknown: no entry names it)',
    labelNames: ['verdict', 'node'],
    registers: [this.registry],
  });
  readonly codesIssued = new Counter({
    name: 'fleet_install_codes_issued_total',
    help: 'Install codes answered to attested boots',
    registers: [this.registry],
  });
  readonly renderRefused = new Counter({
    name: 'fleet_install_render_refused_total',
    help: 'Configs not rendered, so no code answered',
    labelNames: ['reason'],
    registers: [this.registry],
  });
  readonly configsWaiting = new Gauge({
    name: 'fleet_install_configs_waiting',
    help: 'Rendered configs held in memory, waiting for their node',
    registers: [this.registry],
  });
  readonly configsServed = new Counter({
    name: 'fleet_install_configs_served_total',
    help: 'Configs the node took whole (its kernel acknowledged every byte)',
    registers: [this.registry],
  });
  readonly configsUnacknowledged = new Counter({
    name: 'fleet_install_configs_unacknowledged_total',
    help: 'Fetches whose peer did not acknowledge the whole config (kept)',
    registers: [this.registry],
  });
  readonly configMissing = new Counter({
    name: 'fleet_install_config_missing_total',
    help: 'Fetches for a code fleetd holds no config for',
    labelNames: ['node'],
    registers: [this.registry],
  });
  readonly codeGuessesRefused = new Counter({
    name: 'fleet_install_code_guesses_refused_total',
    help: 'Fetches refused (429) because their address, address group or every peer together sent too many wrong codes',
    labelNames: ['limited_by'],
    registers: [this.registry],
  });
  readonly configRefetched = new Counter({
    name: 'fleet_install_config_refetched_total',
    help: 'Fetches for a config fleetd already served',
    labelNames: ['node'],
    registers: [this.registry],
  });
  readonly bootedHookOSAfterInstall = new Counter({
    name: 'fleet_node_booted_hookos_after_install_total',
    help: 'Nodes that netbooted HookOS and attested after their run succeeded',
    labelNames: ['node'],
    registers: [this.registry],
  });
  readonly passes = new Counter({
    name: 'fleet_reconcile_passes_total',
    help: 'Reconcile passes, by outcome',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  readonly errors = new Counter({
    name: 'fleet_errors_total',
    help: 'Requests fleetd failed to answer (500), by route',
    labelNames: ['route'],
    registers: [this.registry],
  });
  readonly inventoryChanges = new Counter({
    name: 'fleet_inventory_changes_total',
    help: 'Changes to the nodes file after start, by outcome (reloaded, or refused with the last good one kept)',
    labelNames: ['outcome'],
    registers: [this.registry],
  });
  readonly inventoryChangeRefused = new Gauge({
    name: 'fleet_inventory_change_refused',
    help: 'Is the nodes file as it stands now refused (1), so fleetd serves the last good one? 0 when it serves the file',
    registers: [this.registry],
  });
  readonly reconcileWrites = new Counter({ name: 'fleet_reconcile_writes_total', help: 'Writes made by reconcile passes', registers: [this.registry] });
  readonly syslog = new SyslogMetrics(this.registry);
  private notAfter: Date | undefined;
  readonly certificateExpiry = new Gauge({
    name: 'fleet_enrollment_certificate_expiry_seconds',
    help: "Seconds until the enrollment name's certificate expires (negative: expired)",
    registers: [this.registry],
    // Computed when scraped: it falls by itself between renewals.
    collect: () => {
      if (this.notAfter) this.certificateExpiry.set((this.notAfter.getTime() - Date.now()) / 1000);
    },
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'fleetd_' });
  }

  /** The certificate fleetd serves now. */
  setCertificate(notAfter: Date): void {
    this.notAfter = notAfter;
  }

  /** Makes the node's alert series exist at 0 before anything can happen to it. */
  watchNode(node: string): void {
    this.configMissing.labels(node).inc(0);
    this.configRefetched.labels(node).inc(0);
    this.bootedHookOSAfterInstall.labels(node).inc(0);
  }
}

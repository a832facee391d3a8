import { Registry } from 'prom-client';
import { Metrics } from '../../verifier/metrics.js';
import { DROP_REASONS, SyslogMetrics } from '../../verifier/syslog/syslog-metrics.js';
import { ALERTS_FILE, alertRules } from './alert-rules.js';
import { cell, type DocPage } from './page.js';

/** What a registry's metric says of itself (prom-client keeps its label names on the metric). */
type Described = { name: string; help: string; type: string; labelNames?: readonly string[] };

function metricRows(metrics: readonly Described[]): string[] {
  return metrics.map((m) => {
    const labels = (m.labelNames ?? []).map((l) => `\`${l}\``).join(', ');
    return `| \`${m.name}\` | ${m.type} | ${labels} | ${cell(m.help)} |`;
  });
}

const HEAD = ['| metric | type | labels | meaning |', '|---|---|---|---|'];

/**
 * docs/reference/metrics.md: the metrics as fleetd's and the syslog receiver's registries hold
 * them, and the alert rules as the rule file writes them.
 */
export const metricsPage: DocPage = {
  path: 'docs/reference/metrics.md',
  render() {
    const syslog = syslogRegistry().getMetricsAsArray() as unknown as Described[];
    const syslogNames = new Set(syslog.map((m) => m.name));
    const fleetd = (new Metrics().registry.getMetricsAsArray() as unknown as Described[]).filter(
      (m) => m.name.startsWith('fleet_') && !syslogNames.has(m.name),
    );
    const alerts = alertRules().map(
      (r) =>
        `| \`${r.alert}\` | \`${cell(r.expr)}\`${r.for ? `, for ${r.for}` : ''} | ${r.labels.severity} | ${cell(r.annotations.summary)} | ${cell(r.annotations.action)} |`,
    );
    return [
      '<!-- Generated from verifier/metrics.ts, verifier/syslog/syslog-metrics.ts and deploy/prometheus/fleet-alerts.yaml by npm run docs. -->',
      '# Metrics and alerts',
      '',
      '## fleetd',
      '',
      '`GET /metrics`, Prometheus text, is answered only to loopback and the addresses or networks',
      '`--metrics-from` names; anyone else gets 404, since its labels name nodes and its counters say',
      'which were refused. Labels carry node names, verdicts and outcomes, never a code, a token or a',
      "serial. Beside these, Node's process metrics, prefixed `fleetd_`, and the HookOS syslog",
      "receiver's below when fleetd runs it. An entry of `--metrics-from` that is not an address or",
      'an address and a decimal prefix within its family (`10.0.9.0/`, `10.0.9.0/x`, `10.0.9.0/33`) is',
      'a usage error naming it, and fleet serve does not start: none is read as a wider network.',
      '',
      ...HEAD,
      ...metricRows(fleetd),
      '',
      '## HookOS syslog',
      '',
      "The receiver's counters, on fleetd's `/metrics`, or on `fleet syslog`'s own (`--metrics-listen`),",
      'which holds nothing else.',
      '',
      ...HEAD,
      ...metricRows(syslog),
      '',
      "`fleet_syslog_dropped_total`'s reasons:",
      '',
      '| reason | lost because |',
      '|---|---|',
      ...Object.entries(DROP_REASONS).map(([reason, why]) => `| \`${reason}\` | ${cell(why)} |`),
      '',
      '## Alerts',
      '',
      `As \`${ALERTS_FILE}\` writes them; what to do is also in the runbook's rows in`,
      '[operations](../operations.md#when-something-goes-wrong). The install alerts clear 30 minutes',
      'after the node stops asking (the HookOS one after an hour). A test checks that every metric an',
      'expression names exists in the registry.',
      '',
      '| alert | expression | severity | says | what to do |',
      '|---|---|---|---|---|',
      ...alerts,
      '',
    ].join('\n');
  },
};

function syslogRegistry(): Registry {
  const registry = new Registry();
  new SyslogMetrics(registry);
  return registry;
}

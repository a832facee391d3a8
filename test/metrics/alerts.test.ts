import { describe, expect, it } from 'vitest';
import { alertRules } from '../../scripts/docs/alert-rules.js';
import { Metrics } from '../../verifier/metrics.js';

const rules = alertRules();

/** Prometheus's own series and the functions and keywords an expression may use. */
const BUILTIN = new Set(['up', 'increase', 'absent', 'or', 'and', 'unless', 'rate', 'by', 'sum']);

describe('the alert rules', () => {
  it("hold the four alerts the runbook names, and the refused nodes file's", () => {
    expect(rules.map((r) => r.alert).sort()).toEqual([
      'EnrollmentNameNotServed',
      'FleetInstallConfigMissing',
      'FleetInstallConfigRefetched',
      'FleetInventoryChangeRefused',
      'FleetNodeBootedHookOSAfterInstall',
    ]);
  });

  it.each(rules.map((r) => [r.alert, r] as const))('%s names only metrics fleetd exports', async (_name, rule) => {
    const metrics = new Metrics();
    metrics.watchNode('n1');
    metrics.setCertificate(new Date(Date.now() + 86_400_000));
    const exported = new Set((await metrics.registry.getMetricsAsJSON()).map((m) => m.name));
    const names = [
      ...rule.expr
        .replace(/\{[^}]*\}/g, '')
        .replace(/\[[^\]]*\]/g, '')
        .matchAll(/[a-z_][a-z0-9_]*/g),
    ].map((m) => m[0]);
    const metricNames = names.filter((n) => !BUILTIN.has(n));
    expect(metricNames.length).toBeGreaterThan(0);
    for (const n of metricNames) expect(exported, `${rule.alert} names ${n}`).toContain(n);
    expect(rule.annotations.summary).toBeTruthy();
    expect(rule.annotations.action).toBeTruthy();
  });

  it('the install alerts look back 30 minutes, so they clear 30 minutes after the node stops asking', () => {
    for (const name of ['FleetInstallConfigMissing', 'FleetInstallConfigRefetched'])
      expect(rules.find((r) => r.alert === name)!.expr).toMatch(/\[30m\]\) > 0$/);
  });

  it("a node's alert series exist at 0 once its code is issued, so the first event raises increase()", async () => {
    const metrics = new Metrics();
    metrics.watchNode('n1');
    const text = await metrics.registry.metrics();
    for (const m of ['fleet_install_config_missing_total', 'fleet_install_config_refetched_total', 'fleet_node_booted_hookos_after_install_total']) {
      expect(text).toContain(`${m}{node="n1"} 0`);
    }
  });
});

/**
 * deploy/grafana/fleet.json: a dashboard Grafana loads (its model's shape), every query naming
 * only series fleetd's registry exports, and the alerts' panels asking exactly what the rule file
 * alerts on.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { alertRules } from '../../scripts/docs/alert-rules.js';
import { Metrics } from '../../verifier/metrics.js';

interface Ref {
  type?: string;
  uid?: string;
}
interface Target {
  refId?: string;
  expr?: string;
  datasource?: Ref;
}
interface Panel {
  id?: number;
  type?: string;
  title?: string;
  description?: string;
  datasource?: Ref;
  gridPos?: { x: number; y: number; w: number; h: number };
  targets?: Target[];
}
interface Dashboard {
  uid?: string;
  title?: string;
  schemaVersion?: number;
  panels?: Panel[];
  templating?: { list?: Array<{ name: string; type: string; query: string }> };
}

const dashboard = JSON.parse(readFileSync(new URL('../../deploy/grafana/fleet.json', import.meta.url), 'utf8')) as Dashboard;
const panels = dashboard.panels ?? [];
const targets = panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title ?? `panel ${p.id}`, ...t })));

/** PromQL's functions, aggregations and keywords the panels use, and Prometheus's own series: not fleet's metrics. */
const PROMQL = new Set(['sum', 'min', 'max', 'by', 'increase', 'rate', 'absent', 'or', 'and', 'unless', 'up']);

/** The names an expression reads: what is left once label matchers, ranges, grouping labels and strings are gone. */
function seriesNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without|on|ignoring)\s*\([^)]*\)/g, '');
  return [...bare.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)].map((m) => m[0]).filter((n) => !PROMQL.has(n));
}

/** How each panel names the datasource: the dashboard variable `datasource`, as Grafana writes a variable. */
const VARIABLE = 'datasource';
const DATASOURCE = `\${${VARIABLE}}`;

describe('the Grafana dashboard', () => {
  it('is a dashboard model Grafana loads: a uid, a title, schemaVersion 36 or later, a Prometheus datasource variable', () => {
    expect(dashboard.uid).toBeTruthy();
    expect(dashboard.title).toBeTruthy();
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    const variable = dashboard.templating?.list?.find((v) => v.name === VARIABLE);
    expect(variable).toMatchObject({ type: 'datasource', query: 'prometheus' });
  });

  it('gives every panel a unique id, a place on the grid that fits it, a type and a title', () => {
    expect(panels.length).toBeGreaterThan(0);
    const ids = panels.map((p) => p.id);
    for (const id of ids) expect(Number.isInteger(id)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of panels) {
      expect(p.type, `${p.id}`).toBeTruthy();
      expect(p.title, `${p.id}`).toBeTruthy();
      const g = p.gridPos!;
      expect(g, p.title).toBeDefined();
      expect(g.w > 0 && g.h > 0 && g.x >= 0 && g.y >= 0 && g.x + g.w <= 24, `${p.title}'s gridPos`).toBe(true);
    }
  });

  it('says, in every panel, the question it answers', () => {
    for (const p of panels) expect(p.description ?? '', p.title).toMatch(/\?/);
  });

  it('queries, in every panel and target, the datasource the variable picks, each target with a refId and an expression', () => {
    for (const p of panels) {
      expect(p.datasource, p.title).toEqual({ type: 'prometheus', uid: DATASOURCE });
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
      const refIds = (p.targets ?? []).map((t) => t.refId);
      expect(new Set(refIds).size, p.title).toBe(refIds.length);
    }
    for (const t of targets) {
      expect(t.refId, t.panel).toMatch(/^[A-Z]$/);
      expect(t.expr, t.panel).toBeTruthy();
      expect(t.datasource, t.panel).toEqual({ type: 'prometheus', uid: DATASOURCE });
    }
  });

  it("names only metrics fleetd's registry exports", async () => {
    const metrics = new Metrics();
    metrics.watchNode('n1');
    metrics.setCertificate(new Date(Date.now() + 86_400_000));
    const exported = new Set((await metrics.registry.getMetricsAsJSON()).map((m) => m.name));
    for (const t of targets) {
      const names = seriesNames(t.expr!);
      expect(names.length, `${t.panel}: ${t.expr}`).toBeGreaterThan(0);
      for (const n of names) expect(exported, `${t.panel} names ${n}`).toContain(n);
    }
  });

  it("shows each alert under its name, with the rule file's expression", () => {
    for (const rule of alertRules()) {
      const panel = panels.find((p) => p.title === rule.alert);
      expect(panel, rule.alert).toBeDefined();
      expect(panel!.targets?.map((t) => t.expr)).toEqual([rule.expr]);
    }
  });

  it('shows verdicts, codes, configs and seeds, reconcile passes and writes, and the syslog receiver', () => {
    const read = new Set(targets.flatMap((t) => seriesNames(t.expr!)));
    for (const m of [
      'fleet_attest_verdicts_total',
      'fleet_install_codes_issued_total',
      'fleet_install_configs_waiting',
      'fleet_install_configs_served_total',
      'fleet_install_configs_unacknowledged_total',
      'fleet_reconcile_passes_total',
      'fleet_reconcile_writes_total',
      'fleet_syslog_received_total',
      'fleet_syslog_dropped_total',
    ])
      expect(read, m).toContain(m);
  });
});

describe('seriesNames', () => {
  it('reads the series of an expression, not its functions, matchers, ranges or grouping labels', () => {
    expect(seriesNames('sum by (verdict) (increase(fleet_attest_verdicts_total{verdict!="attested"}[$__range]))')).toEqual(['fleet_attest_verdicts_total']);
    expect(seriesNames('up{job="fleetd"} == 0 or absent(up{job="fleetd"}) or fleet_enrollment_certificate_expiry_seconds <= 0')).toEqual([
      'fleet_enrollment_certificate_expiry_seconds',
    ]);
    expect(seriesNames('rate(fleet_attest_verdict_total[5m])')).toEqual(['fleet_attest_verdict_total']);
  });
});

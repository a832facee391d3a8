import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export const ALERTS_FILE = 'deploy/prometheus/fleet-alerts.yaml';

export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels: { severity: string };
  annotations: { summary: string; action: string };
}

/** The rule file as Prometheus reads it. */
export function alertRules(): AlertRule[] {
  const file = parse(readFileSync(new URL(`../../${ALERTS_FILE}`, import.meta.url), 'utf8')) as { groups: Array<{ rules: AlertRule[] }> };
  return file.groups.flatMap((g) => g.rules);
}

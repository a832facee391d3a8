/**
 * NetBox responses recorded by others (testdata/netbox, copied with their licences):
 * netbox-docs/ are NetBox 4.6's documented shapes; pynetbox/ are mostly 2.x/3.x shapes (tolerance
 * only), except api/token_provision_v2.json (4.5+ v2 token). And a structural "shape" to compare
 * answers by key set and JSON type rather than by value.
 */
import { readFileSync } from 'node:fs';
import { TESTDATA } from '../testdata.js';

export const NETBOX_TESTDATA = `${TESTDATA}netbox/`;

export function recorded<T = Record<string, unknown>>(relativePath: string): T {
  return JSON.parse(readFileSync(NETBOX_TESTDATA + relativePath, 'utf8')) as T;
}

export type JsonType = 'string' | 'number' | 'boolean' | 'null' | 'array' | 'object';

export function jsonType(v: unknown): JsonType {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  const t = typeof v;
  if (t === 'string' || t === 'number' || t === 'boolean') return t;
  return 'object';
}

/** key → JSON type, one level deep. */
export function shape(obj: unknown): Record<string, JsonType> {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) throw new Error(`not an object: ${JSON.stringify(obj)}`);
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, jsonType(v)]));
}

/** The keys whose values differ between two objects (deep comparison of each value). */
export function changedKeys(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k])).sort();
}

/** NetBox's rendering of a datetime (DRF: isoformat, `+00:00` → `Z`). */
export const NETBOX_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

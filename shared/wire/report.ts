import { ParseError } from '../errors.js';
import { Report } from './schemas.js';
import { checkValue } from './validate.js';

/**
 * Canonical JSON: object keys sorted, no white space, JSON.stringify's escaping. One byte string
 * per value, so the bytes the quote signs are the bytes the verifier re-derives and compares.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}

export function reportBytes(report: Report): Uint8Array {
  return new TextEncoder().encode(canonicalJson(report));
}

/**
 * Parses report bytes and refuses any that are not exactly the canonical form of a valid report:
 * no duplicate keys, no extra white space, no second reading of the same signed bytes.
 */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function parseReport(bytes: Uint8Array): Report {
  let text: string;
  let value: unknown;
  try {
    text = UTF8.decode(bytes);
    value = JSON.parse(text);
  } catch {
    throw new ParseError('report-invalid', 'the report is not UTF-8 JSON');
  }
  const report = checkValue(Report, value, 'report-invalid', 'report');
  if (canonicalJson(report) !== text) throw new ParseError('report-invalid', 'the report is not in canonical form');
  return report;
}

/**
 * HIRS's TPM EK, platform and CA certificates in testdata/tcg-certs (copied with its licence), with
 * EXPECTED.json: per file, what HIRS's own tests assert of it, and what OpenSSL says.
 */
import { readFileSync } from 'node:fs';
import { TESTDATA } from '../testdata.js';

export const TCG_CERTS = `${TESTDATA}tcg-certs/`;

export interface Asserted {
  field: string;
  value: string | number | boolean;
  source: string;
}

export interface Expected {
  group: string;
  loaded_by_tests: string[];
  asserted: Asserted[];
  expect: Array<{ expect: string; source: string }>;
  deliberately_flawed?: { flaw: string; hirs_expects: string };
  openssl: { signature_verifies_with_public_key_of?: string[] };
  observed?: Record<string, unknown>;
}

export const EXPECTED = (JSON.parse(readFileSync(`${TCG_CERTS}EXPECTED.json`, 'utf8')) as { files: Record<string, Expected> }).files;

/** The EK certificates HIRS's tests load (its groups ek-*), by path under testdata/tcg-certs/. */
export const HIRS_EK_FILES = Object.keys(EXPECTED).filter((f) => EXPECTED[f]!.group.startsWith('ek-') && EXPECTED[f]!.loaded_by_tests.length > 0);

/** The platform certificates HIRS's tests load (its groups pc*), by path under testdata/tcg-certs/. */
export const HIRS_PLATFORM_FILES = Object.keys(EXPECTED).filter((f) => EXPECTED[f]!.group.startsWith('pc') && EXPECTED[f]!.loaded_by_tests.length > 0);

export function tcgCert(path: string): Buffer {
  return readFileSync(TCG_CERTS + path);
}

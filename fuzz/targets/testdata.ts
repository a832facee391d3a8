import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Other projects' recorded test data (testdata/), from the one module that knows where it is. */
export { TESTDATA } from '../../test/testdata.js';
/** The repository's own recordings (test/vectors). */
export const VECTORS = fileURLToPath(new URL('../../test/vectors/', import.meta.url));

export function bytesOf(path: string): Uint8Array {
  return new Uint8Array(readFileSync(path));
}

/** Every file in `dir` whose name passes `keep`. */
export function filesIn(dir: string, keep: (name: string) => boolean = () => true): Uint8Array[] {
  return readdirSync(dir)
    .filter(keep)
    .sort()
    .map((n) => bytesOf(join(dir, n)));
}

export function jsonOf<T>(path: string): T {
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

const enc = new TextEncoder();
export const utf8 = (s: string): Uint8Array => enc.encode(s);

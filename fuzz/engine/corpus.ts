import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The kept corpus: one file per input, named by its content's hash, so a rerun adds no duplicate. */
export function readCorpus(dir: string): Uint8Array[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => !n.startsWith('.'))
    .sort()
    .map((n) => new Uint8Array(readFileSync(join(dir, n))));
}

export function inputName(input: Uint8Array): string {
  return createHash('sha256').update(input).digest('hex').slice(0, 16);
}

export function keep(dir: string, input: Uint8Array): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, inputName(input)), input);
}

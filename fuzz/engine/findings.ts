import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inputName } from './corpus.js';

export interface Finding {
  /** crash: an untyped exception or a broken promise; slow: over the time budget; hang, oom: the worker was stopped. */
  kind: 'crash' | 'slow' | 'hang' | 'oom';
  /** What makes two inputs the same finding: the error's class, its words without numbers, where it was thrown. */
  key: string;
  message: string;
  stack: string;
  /** The smallest input seen for this finding. */
  input: Uint8Array;
  count: number;
}

/** The first frame in the project's own code (not the fuzzer's), which names the bug's place. */
function place(stack: string, root: string): string {
  for (const line of stack.split('\n').slice(1)) {
    if (line.includes(root) && !line.includes('/fuzz/') && !line.includes('node_modules')) return line.trim().replace(/:\d+\)?$/, '');
  }
  return stack.split('\n')[1]?.trim() ?? '';
}

export function describe(kind: Finding['kind'], err: unknown, root: string): Omit<Finding, 'input' | 'count'> {
  const e = err instanceof Error ? err : new Error(`non-Error thrown: ${String(err)}`);
  const stack = e.stack ?? `${e.name}: ${e.message}`;
  const words = e.message.replace(/0x[0-9a-f]+|\d+/gi, 'N').slice(0, 120);
  return { kind, key: `${kind} ${e.name}: ${words} @ ${place(stack, root)}`, message: `${e.name}: ${e.message}`.slice(0, 500), stack };
}

/** Findings of one target, deduplicated; each is written to `dir` with its smallest input so far. */
export class Findings {
  readonly byKey = new Map<string, Finding>();
  total = 0;

  constructor(private readonly dir: string | null) {}

  add(f: Omit<Finding, 'input' | 'count'>, input: Uint8Array): boolean {
    this.total++;
    const known = this.byKey.get(f.key);
    if (known) {
      known.count++;
      if (input.length >= known.input.length) return false;
      known.input = input.slice();
    } else this.byKey.set(f.key, { ...f, input: input.slice(), count: 1 });
    this.write(this.byKey.get(f.key)!);
    return !known;
  }

  private write(f: Finding): void {
    if (!this.dir) return;
    mkdirSync(this.dir, { recursive: true });
    const name = inputName(new TextEncoder().encode(f.key));
    writeFileSync(join(this.dir, `${name}.input`), f.input);
    writeFileSync(join(this.dir, `${name}.txt`), `${f.key}\n\n${f.stack}\n`);
  }
}

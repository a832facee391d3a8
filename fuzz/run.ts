/**
 * `npm run fuzz`: every target (or `--target NAME`, repeatable) for `--runs N` inputs or
 * `--time S` seconds each (default 120 s), one after another, at the lowest CPU priority.
 * `--report` prints the table of executions, crashes, findings and coverage per target;
 * `--replay FILE` runs one input (a finding's) under one target and prints what it threw;
 * `--seed N` repeats a run's choices; `--no-keep` leaves the kept corpus as it is.
 */
import { readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { findingLines, reportTable } from './engine/report.js';
import { superviseTarget, type TargetResult } from './engine/supervise.js';
import { TARGETS } from './targets/index.js';

const FUZZ_DIR = dirname(fileURLToPath(import.meta.url));
const ROOT = dirname(FUZZ_DIR);

export interface FuzzOptions {
  targets?: string[];
  runs?: number | null;
  timeSec?: number | null;
  seed?: number;
  keep?: boolean;
  log?: (line: string) => void;
}

export async function fuzz(o: FuzzOptions = {}): Promise<TargetResult[]> {
  const names = o.targets?.length ? o.targets : TARGETS;
  const unknown = names.filter((t) => !TARGETS.includes(t));
  if (unknown.length) throw new Error(`no fuzz target ${unknown.join(', ')}; the targets are ${TARGETS.join(', ')}`);
  const results: TargetResult[] = [];
  for (const target of names) {
    const seed = o.seed ?? Math.floor(Math.random() * 2 ** 31);
    o.log?.(`[${target}] seed ${seed}`);
    const r = await superviseTarget(
      {
        target,
        root: ROOT,
        runs: o.runs ?? null,
        timeSec: o.timeSec === undefined ? (o.runs ? null : 120) : o.timeSec,
        seed,
        corpusDir: join(FUZZ_DIR, 'corpus', target),
        keep: o.keep ?? true,
        findingsDir: join(FUZZ_DIR, 'findings', target),
      },
      o.log ?? (() => undefined),
    );
    o.log?.(`[${target}] done: ${r.execs} executions, ${r.crashes} crashes, ${r.findings.length} findings, ${r.ownBlocks} blocks, ${Math.round(r.seconds)} s`);
    results.push(r);
  }
  return results;
}

async function replay(target: string, file: string): Promise<TargetResult> {
  const input = new Uint8Array(readFileSync(file));
  return superviseTarget(
    { target, root: ROOT, runs: 1, timeSec: null, seed: 0, corpusDir: join(FUZZ_DIR, 'corpus', target), keep: false, findingsDir: null, replay: input },
    () => undefined,
  );
}

function parseArgs(argv: string[]): { o: FuzzOptions; report: boolean; replay?: string } {
  const o: FuzzOptions = { targets: [] };
  let report = false;
  let replayFile: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--report') report = true;
    else if (a === '--target') o.targets!.push(...value().split(','));
    else if (a === '--runs') o.runs = Number(value());
    else if (a === '--time') o.timeSec = Number(value());
    else if (a === '--seed') o.seed = Number(value());
    else if (a === '--no-keep') o.keep = false;
    else if (a === '--replay') replayFile = resolve(value());
    else throw new Error(`unknown option ${a}`);
  }
  return { o, report, ...(replayFile ? { replay: replayFile } : {}) };
}

async function main(): Promise<void> {
  // Fuzzing is background work: it yields the cores to anything else.
  setPriority(19);
  const { o, report, replay: file } = parseArgs(process.argv.slice(2));
  if (file) {
    if (o.targets?.length !== 1) throw new Error('--replay needs exactly one --target');
    const r = await replay(o.targets[0]!, file);
    console.log(r.findings.length ? findingLines([r]).join('\n') : 'no finding: the input is answered as the oracle allows');
    process.exitCode = r.findings.length ? 1 : 0;
    return;
  }
  const results = await fuzz({ ...o, log: (line) => console.error(line) });
  if (report) console.log(reportTable(results));
  else for (const r of results) console.log(`${r.target}: ${r.execs} executions, ${r.findings.length} findings, ${r.ownBlocks} blocks`);
  const lines = findingLines(results);
  if (lines.length) console.log(`\nfindings (inputs under fuzz/findings/):\n${lines.join('\n')}`);
  process.exitCode = lines.length ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();

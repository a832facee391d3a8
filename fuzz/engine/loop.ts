import { parentPort, workerData } from 'node:worker_threads';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { keep, readCorpus } from './corpus.js';
import { Coverage } from './coverage.js';
import { describe, Findings } from './findings.js';
import { mutateBytes } from './mutate-bytes.js';
import { harvest, mutateJson, type Json, type JsonDictionary } from './mutate-json.js';
import { Progress } from './progress.js';
import { Rng } from './rng.js';
import type { Target } from './target.js';
import type { LoopOptions, LoopStats } from './protocol.js';

/** Inputs between two coverage takes; a take costs about a millisecond. */
const BATCH = 200;
const DEFAULT_SLOW_MS = 1000;
/**
 * Found inputs larger than this stay out of the kept corpus: it lives in git. So do inputs that
 * reached only a library's new code (the YAML parser's): they guide this run, not the next.
 */
const KEEP_MAX = 16 * 1024;

interface Entry {
  bytes: Uint8Array;
  /** The parsed value, for structural mutation; undefined when the bytes do not parse. */
  value?: Json | undefined;
}

// Deep enough to reach from a library's throw back to fleet's frame that called it.
Error.stackTraceLimit = 50;
const opts = workerData.options as LoopOptions;
const progress = new Progress(workerData.progress as SharedArrayBuffer);
const root = opts.root;
const ownCode = (url: string) => url.startsWith(`file://${root}/`) && !url.includes('/node_modules/') && !url.startsWith(`file://${root}/fuzz/`);
// Started before the target is imported: V8 counts blocks only in functions compiled after.
const coverage = new Coverage((url) => url === '' || url.startsWith('node:') || url.startsWith(`file://${root}/fuzz/`), ownCode);
const target = ((await import(`../targets/${opts.target}.ts`)) as { default: Target }).default;
const rng = new Rng(opts.seed);
const findings = new Findings(opts.findingsDir);
const slowMs = target.slowMs ?? DEFAULT_SLOW_MS;
const enc = new TextEncoder();
const dec = new TextDecoder();
const dictionary = (target.dictionary ?? []).map((t) => (typeof t === 'string' ? enc.encode(t) : t));
let execs = 0;
const cpuStart = process.cpuUsage();

async function exec(input: Uint8Array): Promise<void> {
  progress.begin(input);
  const start = performance.now();
  try {
    const r = target.run(input);
    if (r) await r;
  } catch (err) {
    if (findings.add(describe('crash', err, root), input)) report('finding');
  }
  const took = performance.now() - start;
  if (took > slowMs) {
    if (findings.add(describe('slow', new Error(`one input took ${Math.round(took)} ms, over ${slowMs} ms`), root), input)) report('finding');
  }
  execs++;
  progress.done();
}

function parsed(bytes: Uint8Array): Json | undefined {
  if (target.kind === 'bytes') return undefined;
  try {
    const text = dec.decode(bytes);
    return (target.kind === 'json' ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 100, logLevel: 'silent' })) as Json;
  } catch {
    return undefined;
  }
}

function encode(value: Json): Uint8Array {
  return enc.encode(target.kind === 'json' ? JSON.stringify(value) : stringifyYaml(value));
}

let jsonDict: JsonDictionary = { keys: [], strings: [] };

/** A new input from a corpus entry: a stack of edits, structural for JSON and YAML most of the time. */
function mutate(base: Entry, other: Entry): Uint8Array {
  const edits = 1 + rng.skewed(7);
  if (base.value !== undefined && rng.chance(0.8)) {
    let v = base.value;
    for (let i = 0; i < edits; i++) v = mutateJson(rng, v, other.value ?? null, jsonDict);
    try {
      const out = encode(v);
      return out.length > target.maxLen ? out.subarray(0, target.maxLen) : out;
    } catch {
      return base.bytes;
    }
  }
  let b = base.bytes;
  for (let i = 0; i < edits; i++) b = mutateBytes(rng, b, other.bytes, dictionary, target.maxLen);
  return b;
}

const corpus: Entry[] = [];
const added: Uint8Array[] = [];

/** `found`: the fuzzer made it and it reached new code; `ownCode`: new code of fleet's own. */
function addEntry(bytes: Uint8Array, found: boolean, ownCode = false): void {
  corpus.push({ bytes, value: parsed(bytes) });
  if (!found) return;
  added.push(bytes);
  if (opts.keep && ownCode && bytes.length <= KEEP_MAX) keep(opts.corpusDir, bytes);
}

function stats(): LoopStats {
  let ownBlocks = 0;
  let ownFunctions = 0;
  for (const k of coverage.blocks) if (ownCode(k.slice(0, k.indexOf(' ')))) ownBlocks++;
  for (const k of coverage.functions) if (ownCode(k.slice(0, k.indexOf(' ')))) ownFunctions++;
  const cpu = process.cpuUsage(cpuStart);
  return {
    execs,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    corpus: corpus.length,
    added: added.length,
    blocks: coverage.blocks.size,
    ownBlocks,
    ownFunctions,
    crashes: findings.total,
    findings: [...findings.byKey.values()].map((f) => ({ kind: f.kind, key: f.key, message: f.message, count: f.count, size: f.input.length })),
  };
}

function report(type: 'progress' | 'finding' | 'done'): void {
  parentPort!.postMessage({ type, stats: stats() });
}

/** Something in `inputs` reached new code: halves run again until the inputs that did are found. */
async function attribute(inputs: Uint8Array[]): Promise<void> {
  if (inputs.length === 1) {
    await exec(inputs[0]!);
    if (coverage.take(true) > 0) addEntry(inputs[0]!, true, coverage.ownFresh > 0);
    return;
  }
  const mid = inputs.length >> 1;
  for (const half of [inputs.slice(0, mid), inputs.slice(mid)]) {
    for (const b of half) await exec(b);
    if (coverage.take(false) > 0) await attribute(half);
  }
}

async function main(): Promise<void> {
  if (opts.replay) {
    await exec(opts.replay);
    report('done');
    return;
  }
  const initial = [...target.seeds(), ...readCorpus(opts.corpusDir)].map((b) => (b.length > target.maxLen ? b.subarray(0, target.maxLen) : b));
  for (const b of initial) {
    await exec(b);
    coverage.take(true);
    addEntry(b, false);
  }
  if (corpus.length === 0) addEntry(new Uint8Array(0), false);
  jsonDict = harvest(corpus.map((e) => e.value));
  parentPort!.postMessage({ type: 'ready' });
  const deadline = opts.timeSec === null ? Infinity : performance.now() + opts.timeSec * 1000;
  let lastReport = performance.now();
  const batch: Uint8Array[] = [];
  while ((opts.runs === null || execs < opts.runs) && performance.now() < deadline) {
    const input = mutate(rng.pick(corpus), rng.pick(corpus));
    await exec(input);
    batch.push(input);
    if (batch.length < BATCH && execs !== opts.runs) continue;
    if (coverage.take(false) > 0) await attribute(batch);
    batch.length = 0;
    if (performance.now() - lastReport > 5000) {
      lastReport = performance.now();
      report('progress');
    }
  }
  report('done');
}

await main();
coverage.close();

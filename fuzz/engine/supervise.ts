import { Worker } from 'node:worker_threads';
import { describe, Findings } from './findings.js';
import { Progress } from './progress.js';
import type { LoopOptions, LoopStats } from './protocol.js';

export interface TargetResult extends LoopStats {
  target: string;
  seconds: number;
  /** Times the worker was stopped (hang) or died (out of memory) and was started again. */
  restarts: number;
}

/** The worker's heap: past it, a memory blow-up is a finding, not a dead machine. */
const HEAP_MB = 2048;
/** No input finished for this long: the worker is hung, and is stopped. */
const HANG_S = 30;
const MAX_RESTARTS = 5;

/**
 * Runs one target in a worker thread and watches it from outside: a hang (no input finished for
 * HANG_S) or an out-of-memory death becomes a finding with the input that was running, and the
 * worker starts again for the runs that are left. Logs progress through `log`.
 */
export async function superviseTarget(opts: LoopOptions, log: (line: string) => void): Promise<TargetResult> {
  const started = performance.now();
  const outside = new Findings(opts.findingsDir);
  const done: LoopStats[] = [];
  let restarts = 0;
  let last: LoopStats | null = null;
  for (;;) {
    const remaining = opts.runs === null ? null : opts.runs - done.reduce((n, s) => n + s.execs, 0);
    const elapsed = (performance.now() - started) / 1000;
    const timeSec = opts.timeSec === null ? null : Math.max(1, opts.timeSec - elapsed);
    const end = await runWorker({ ...opts, runs: remaining, timeSec }, (s) => {
      last = s;
      log(`[${opts.target}] ${s.execs} execs, ${s.ownBlocks} blocks, corpus ${s.corpus}, ${s.findings.length} findings`);
    });
    if (end.stats) done.push(end.stats);
    else if (last) done.push(last);
    last = null;
    if (!end.death) break;
    const d = describe(end.death.kind, new Error(end.death.why), opts.root);
    outside.add({ ...d, key: `${end.death.kind} ${end.death.why}` }, end.death.input);
    log(`[${opts.target}] ${end.death.why}; the input is kept with the findings`);
    if (++restarts > MAX_RESTARTS || (remaining !== null && remaining <= 0)) break;
  }
  return { target: opts.target, seconds: (performance.now() - started) / 1000, restarts, ...merge(done, outside) };
}

interface WorkerEnd {
  stats: LoopStats | null;
  death?: { kind: 'hang' | 'oom'; why: string; input: Uint8Array };
}

function runWorker(opts: LoopOptions, onProgress: (s: LoopStats) => void): Promise<WorkerEnd> {
  const progress = new Progress();
  const worker = new Worker(new URL('./worker.mjs', import.meta.url), {
    workerData: { options: opts, progress: progress.buffer },
    resourceLimits: { maxOldGenerationSizeMb: HEAP_MB },
    stdout: false,
  });
  return new Promise((resolve, reject) => {
    let stats: LoopStats | null = null;
    let seen = -1;
    let still = 0;
    let death: WorkerEnd['death'];
    const watchdog = setInterval(() => {
      const now = progress.execs;
      still = now === seen ? still + 1 : 0;
      seen = now;
      if (still < HANG_S) return;
      clearInterval(watchdog);
      death = { kind: 'hang', why: `no input finished in ${HANG_S} s`, input: progress.current() };
      void worker.terminate();
    }, 1000);
    worker.on('message', (m: { type: string; stats?: LoopStats }) => {
      if (m.stats) stats = m.stats;
      if (m.type === 'progress' && m.stats) onProgress(m.stats);
    });
    worker.on('error', (err: Error & { code?: string }) => {
      clearInterval(watchdog);
      if (err.code === 'ERR_WORKER_OUT_OF_MEMORY') death = { kind: 'oom', why: `the heap passed ${HEAP_MB} MB`, input: progress.current() };
      else reject(err);
    });
    worker.on('exit', () => {
      clearInterval(watchdog);
      resolve(death ? { stats, death } : { stats });
    });
  });
}

function merge(parts: LoopStats[], outside: Findings): LoopStats {
  const last = parts.at(-1);
  const findings = parts.flatMap((p) => p.findings);
  for (const f of outside.byKey.values()) findings.push({ kind: f.kind, key: f.key, message: f.message, count: f.count, size: f.input.length });
  const byKey = new Map<string, LoopStats['findings'][number]>();
  for (const f of findings) {
    const k = byKey.get(f.key);
    if (k) {
      k.count += f.count;
      k.size = Math.min(k.size, f.size);
    } else byKey.set(f.key, { ...f });
  }
  return {
    execs: parts.reduce((n, p) => n + p.execs, 0),
    cpuSeconds: parts.reduce((n, p) => n + p.cpuSeconds, 0),
    corpus: last?.corpus ?? 0,
    added: parts.reduce((n, p) => n + p.added, 0),
    blocks: Math.max(0, ...parts.map((p) => p.blocks)),
    ownBlocks: Math.max(0, ...parts.map((p) => p.ownBlocks)),
    ownFunctions: Math.max(0, ...parts.map((p) => p.ownFunctions)),
    crashes: parts.reduce((n, p) => n + p.crashes, 0) + outside.total,
    findings: [...byKey.values()],
  };
}

/** What the main thread tells a target's worker. */
export interface LoopOptions {
  target: string;
  /** The repository's root, without a trailing slash. */
  root: string;
  runs: number | null;
  timeSec: number | null;
  seed: number;
  /** The kept corpus: read at start, and where found inputs go when `keep` is set. */
  corpusDir: string;
  /** Off for the smoke test: a check must not change the tree. */
  keep: boolean;
  findingsDir: string | null;
  /** Run this one input, and nothing else. */
  replay?: Uint8Array;
}

/** What a worker answers, in its progress, finding and done messages. */
export interface LoopStats {
  execs: number;
  /** CPU time the process spent; on a shared machine far less than the wall time. */
  cpuSeconds: number;
  corpus: number;
  added: number;
  /** Blocks run at least once, all code but node's and the fuzzer's. */
  blocks: number;
  /** The same, in fleet's own source files only. */
  ownBlocks: number;
  ownFunctions: number;
  /** Inputs that failed the oracle, counted each time. */
  crashes: number;
  findings: Array<{ kind: string; key: string; message: string; count: number; size: number }>;
}

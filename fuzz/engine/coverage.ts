import { Session } from 'node:inspector';

interface Range {
  startOffset: number;
  endOffset: number;
  count: number;
}

interface ScriptCoverage {
  scriptId: string;
  url: string;
  functions: Array<{ functionName: string; ranges: Range[] }>;
}

/**
 * V8's precise block coverage through this thread's inspector. Each take answers what ran since
 * the previous one (V8 resets its counters), so one take after a batch of inputs says cheaply
 * whether any of them reached new code.
 *
 * V8 reports a block only where its count differs from the enclosing range's, so the same
 * block is listed after a batch (run by some inputs) and left out after one input (run as often
 * as its function). A block is therefore judged by the innermost reported range around it, over
 * every block V8 has ever named in that function; that reading is the same for a batch and for
 * each of its inputs. Node's internals and the fuzzer's own files are left out.
 */
export class Coverage {
  private readonly session = new Session();
  /** Each function's blocks ever named, by "url offset" of the function. */
  private readonly known = new Map<string, Array<[number, number]>>();
  /** Blocks run at least once: "url offset". */
  readonly blocks = new Set<string>();
  readonly functions = new Set<string>();
  /** Of the last take's new blocks, how many are in fleet's own code. */
  ownFresh = 0;

  constructor(
    private readonly ignore: (url: string) => boolean,
    private readonly own: (url: string) => boolean,
  ) {
    this.session.connect();
    this.post('Profiler.enable');
    this.post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });
  }

  private post(method: string, params: object = {}): unknown {
    let result: unknown;
    let error: Error | null = null;
    // The in-thread session answers synchronously.
    this.session.post(method, params, (err, res) => {
      error = err;
      result = res;
    });
    if (error) throw error;
    return result;
  }

  /** How many blocks run since the last take were never run before; `record` adds them. */
  take(record: boolean): number {
    const { result } = this.post('Profiler.takePreciseCoverage') as { result: ScriptCoverage[] };
    let fresh = 0;
    this.ownFresh = 0;
    for (const script of result) {
      if (this.ignore(script.url)) continue;
      const own = this.own(script.url);
      for (const fn of script.functions) {
        const ranges = fn.ranges;
        const head = ranges[0];
        if (!head || head.count === 0) continue;
        const fnKey = `${script.url} ${head.startOffset}`;
        if (!this.functions.has(fnKey)) {
          fresh++;
          if (record) this.functions.add(fnKey);
        }
        const blocks = this.blocksOf(fnKey, ranges);
        for (const [start, end] of blocks) {
          if (countAt(ranges, start, end) === 0) continue;
          const key = `${script.url} ${start}`;
          if (this.blocks.has(key)) continue;
          fresh++;
          if (own) this.ownFresh++;
          if (record) this.blocks.add(key);
        }
      }
    }
    return fresh;
  }

  private blocksOf(fnKey: string, ranges: Range[]): Array<[number, number]> {
    let blocks = this.known.get(fnKey);
    if (!blocks) this.known.set(fnKey, (blocks = []));
    for (const r of ranges) if (!blocks.some(([s, e]) => s === r.startOffset && e === r.endOffset)) blocks.push([r.startOffset, r.endOffset]);
    return blocks;
  }

  close(): void {
    this.session.disconnect();
  }
}

/** The count of the innermost reported range holding [start, end). */
function countAt(ranges: Range[], start: number, end: number): number {
  let count = 0;
  let width = Infinity;
  for (const r of ranges) {
    if (r.startOffset <= start && end <= r.endOffset && r.endOffset - r.startOffset <= width) {
      width = r.endOffset - r.startOffset;
      count = r.count;
    }
  }
  return count;
}

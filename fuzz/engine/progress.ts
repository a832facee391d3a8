/**
 * What the main thread must know even when the worker dies mid-input: how many inputs ran and
 * the bytes of the one running now. Shared memory, so a hang or an out-of-memory death still
 * leaves the input behind.
 */
export const MAX_INPUT = 4 << 20;

export class Progress {
  readonly words: Int32Array;
  readonly bytes: Uint8Array;

  constructor(readonly buffer: SharedArrayBuffer = new SharedArrayBuffer(16 + MAX_INPUT)) {
    this.words = new Int32Array(buffer, 0, 4);
    this.bytes = new Uint8Array(buffer, 16);
  }

  /** Executions so far (wraps past 2^31; only its movement is watched). */
  get execs(): number {
    return Atomics.load(this.words, 0);
  }

  begin(input: Uint8Array): void {
    const n = Math.min(input.length, MAX_INPUT);
    this.bytes.set(n === input.length ? input : input.subarray(0, n));
    this.words[1] = n;
  }

  done(): void {
    Atomics.add(this.words, 0, 1);
  }

  current(): Uint8Array {
    return this.bytes.slice(0, this.words[1]);
  }
}

/**
 * The bounded queue between the UDP receiver and journald. `push` never blocks and never throws:
 * an entry journald cannot take now waits (journald busy: until its socket is writable again;
 * journald gone: until it reconnects), and an entry that would overfill the queue is dropped and
 * counted, so a slow journal costs messages, never the receiver (or the verifier beside it).
 */
import type { JournalSink } from './journal-socket.js';
import type { DropReason } from './syslog-metrics.js';

export interface JournalQueueOptions {
  maxBytes: number;
  onWritten(): void;
  onDropped(reason: DropReason): void;
  /** How long a busy journal may stay silent before sending is tried again (default 100 ms). */
  retryMs?: number;
  /** Between attempts to reconnect to a journald that went away (default 1 s). */
  reconnectMs?: number;
}

export class JournalQueue {
  private entries: Buffer[] = [];
  private head = 0;
  private queuedBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private idlers: Array<() => void> = [];

  constructor(
    private readonly sink: JournalSink,
    private readonly opts: JournalQueueOptions,
  ) {
    sink.onWritable(() => this.drain());
  }

  get length(): number {
    return this.entries.length - this.head;
  }

  get bytes(): number {
    return this.queuedBytes;
  }

  push(entry: Buffer): void {
    if (this.queuedBytes + entry.length > this.opts.maxBytes) {
      this.opts.onDropped('queue-full');
      return;
    }
    this.entries.push(entry);
    this.queuedBytes += entry.length;
    if (!this.timer) this.drain();
  }

  /** Resolves once the queue is empty. */
  idle(): Promise<void> {
    return this.length === 0 ? Promise.resolve() : new Promise((resolve) => this.idlers.push(resolve));
  }

  /** Waits up to `graceMs` for the queue to empty, then drops (and counts) what is left. */
  async close(graceMs = 1000): Promise<void> {
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([this.idle(), new Promise<void>((resolve) => (grace = setTimeout(resolve, graceMs)))]);
    clearTimeout(grace);
    this.stopTimer();
    for (let i = this.length; i > 0; i--) this.opts.onDropped('shutdown');
    this.entries = [];
    this.head = 0;
    this.queuedBytes = 0;
    this.sink.close();
    this.wakeIdlers();
  }

  private drain(): void {
    this.stopTimer();
    while (this.head < this.entries.length) {
      const entry = this.entries[this.head]!;
      const outcome = this.sink.send(entry);
      if (outcome === 'busy') return this.retryIn(this.opts.retryMs ?? 100, () => this.drain());
      if (outcome === 'down') return this.retryIn(this.opts.reconnectMs ?? 1000, () => this.reconnect());
      this.dequeue(entry);
      if (outcome === 'sent') this.opts.onWritten();
      else this.opts.onDropped('journal-refused');
    }
    this.entries = [];
    this.head = 0;
    this.wakeIdlers();
  }

  private dequeue(entry: Buffer): void {
    this.entries[this.head++] = EMPTY;
    this.queuedBytes -= entry.length;
    // A queue that never quite empties must not grow a tail of sent slots.
    if (this.head >= 4096 && this.head * 2 >= this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }

  private reconnect(): void {
    this.timer = undefined;
    if (this.sink.reconnect()) this.drain();
    else this.retryIn(this.opts.reconnectMs ?? 1000, () => this.reconnect());
  }

  private retryIn(ms: number, fn: () => void): void {
    this.timer = setTimeout(fn, ms);
    // A waiting queue must not keep a process alive that has nothing else to do.
    this.timer.unref();
  }

  private stopTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private wakeIdlers(): void {
    for (const wake of this.idlers.splice(0)) wake();
  }
}

const EMPTY = Buffer.alloc(0);

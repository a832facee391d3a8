import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { JournalQueue } from '../../verifier/syslog/journal-queue.js';
import type { DropReason } from '../../verifier/syslog/syslog-metrics.js';
import type { JournalSink, SendOutcome } from '../../verifier/syslog/journal-socket.js';

/** A journald stand-in that answers each send from `script` (then `sent`), and records what it took. */
class FakeSink implements JournalSink {
  taken: string[] = [];
  script: SendOutcome[] = [];
  reconnects: boolean[] = [];
  closed = false;
  writable: () => void = () => undefined;
  send(entry: Buffer): SendOutcome {
    const outcome = this.script.shift() ?? 'sent';
    if (outcome === 'sent') this.taken.push(entry.toString());
    return outcome;
  }
  reconnect(): boolean {
    return this.reconnects.shift() ?? true;
  }
  onWritable(listener: () => void): void {
    this.writable = listener;
  }
  close(): void {
    this.closed = true;
  }
}

function rig(maxBytes = 1000) {
  const sink = new FakeSink();
  const counts = { written: 0, dropped: [] as DropReason[] };
  const queue = new JournalQueue(sink, {
    maxBytes,
    retryMs: 100,
    reconnectMs: 1000,
    onWritten: () => counts.written++,
    onDropped: (r) => counts.dropped.push(r),
  });
  const push = (...s: string[]) => {
    for (const x of s) queue.push(Buffer.from(x));
  };
  return { sink, counts, queue, push };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('the journal queue', () => {
  it('sends at once while journald takes everything', () => {
    const { sink, counts, queue, push } = rig();
    push('a', 'b');
    expect(sink.taken).toEqual(['a', 'b']);
    expect(counts.written).toBe(2);
    expect(queue.length).toBe(0);
  });

  it('busy: keeps the entry and what follows, in order, until journald is writable', () => {
    const { sink, counts, queue, push } = rig();
    sink.script = ['busy'];
    push('a', 'b', 'c');
    expect(sink.taken).toEqual([]);
    expect(queue.length).toBe(3);
    expect(queue.bytes).toBe(3);
    sink.writable();
    expect(sink.taken).toEqual(['a', 'b', 'c']);
    expect(counts.written).toBe(3);
    expect(queue.bytes).toBe(0);
  });

  it('busy and no writable event: tries again after retryMs', () => {
    const { sink, push } = rig();
    sink.script = ['busy', 'busy'];
    push('a');
    vi.advanceTimersByTime(99);
    expect(sink.taken).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(sink.script).toEqual([]);
    expect(sink.taken).toEqual([]);
    vi.advanceTimersByTime(100);
    expect(sink.taken).toEqual(['a']);
  });

  it('full: drops the newest and counts it, without waiting', () => {
    const { sink, counts, queue, push } = rig(5);
    sink.script = ['busy'];
    push('aa', 'bb', 'cc', 'd');
    expect(counts.dropped).toEqual(['queue-full']);
    expect(queue.length).toBe(3);
    sink.writable();
    expect(sink.taken).toEqual(['aa', 'bb', 'd']);
  });

  it('down: reconnects every reconnectMs, keeping the entries', () => {
    const { sink, counts, push } = rig();
    sink.script = ['down'];
    sink.reconnects = [false, true];
    push('a', 'b');
    vi.advanceTimersByTime(1000);
    expect(sink.taken).toEqual([]);
    vi.advanceTimersByTime(1000);
    expect(sink.taken).toEqual(['a', 'b']);
    expect(counts).toEqual({ written: 2, dropped: [] });
  });

  it('refused: drops that entry only', () => {
    const { sink, counts, push } = rig();
    sink.script = ['refused'];
    push('a', 'b');
    expect(sink.taken).toEqual(['b']);
    expect(counts).toEqual({ written: 1, dropped: ['journal-refused'] });
  });

  it('idle() resolves once everything queued is written', async () => {
    const { sink, queue, push } = rig();
    sink.script = ['busy'];
    push('a');
    let idle = false;
    void queue.idle().then(() => (idle = true));
    await Promise.resolve();
    expect(idle).toBe(false);
    sink.writable();
    await Promise.resolve();
    expect(idle).toBe(true);
  });

  it('close: waits for the queue, then drops and counts the rest, and closes the socket', async () => {
    const { sink, counts, queue, push } = rig();
    sink.script = ['down'];
    sink.reconnects = [false, false, false];
    push('a', 'b');
    const closing = queue.close(1500);
    await vi.advanceTimersByTimeAsync(1500);
    await closing;
    expect(counts.dropped).toEqual(['shutdown', 'shutdown']);
    expect(sink.closed).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a queue that keeps some entries for a long time does not grow', () => {
    const { sink, queue, push } = rig(1 << 20);
    sink.script = ['busy'];
    for (let round = 0; round < 20; round++) {
      push(...Array.from({ length: 1000 }, (_, i) => `${round}-${i}`));
      sink.script = [...Array.from({ length: 999 }, (): SendOutcome => 'sent'), 'busy'];
      sink.writable();
      expect(queue.length).toBe(1 + round);
    }
    expect((queue as unknown as { entries: unknown[] }).entries.length).toBeLessThan(10_000);
  });
});

/**
 * A journald stand-in for receiver tests: a unix datagram socket in a temp dir that keeps every
 * entry it is sent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import unixDgram from 'unix-dgram';
import { fieldMap } from './journal-decode.js';
import { waitUntil } from './wait.js';

export interface FakeJournal {
  path: string;
  entries: Array<Record<string, string>>;
  /** Resolves once `n` entries arrived; rejects after `timeoutMs`. */
  waitFor(n: number, timeoutMs?: number): Promise<void>;
  close(): void;
}

export function fakeJournal(): FakeJournal {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-fake-journal-'));
  const path = join(dir, 'socket');
  const entries: Array<Record<string, string>> = [];
  const socket = unixDgram.createSocket('unix_dgram', (buf) => entries.push(fieldMap(buf)));
  socket.bind(path);
  return {
    path,
    entries,
    waitFor: (n, timeoutMs = 10_000) =>
      waitUntil(
        () => entries.length >= n,
        timeoutMs,
        () => `${entries.length} of ${n} entries arrived`,
      ),
    close() {
      socket.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * An install code never reaches the journal in any spelling: real syslog messages from util-linux
 * logger through the receiver, holding a code URL-encoded twice, JSON-escaped as `\u002F`, run on
 * into `-` or `_`, or in the structured data.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { JournalSocket } from '../../verifier/syslog/journal-socket.js';
import { startSyslogReceiver } from '../../verifier/syslog/receiver.js';
import { Metrics } from '../../verifier/metrics.js';
import { fakeJournal } from './fake-journal.js';
import { logger } from './senders.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function rig() {
  const journal = fakeJournal();
  cleanups.push(() => journal.close());
  const receiver = await startSyslogReceiver({
    listen: { host: '127.0.0.1', port: 0 },
    journal: JournalSocket.open(journal.path),
    metrics: new Metrics().syslog,
    audit: () => undefined,
  });
  cleanups.push(() => receiver.close());
  return { journal, receiver };
}

/** A code with a `-` and a `_` in it, as one in four of the real ones has neither. */
function code(): string {
  for (;;) {
    const c = randomBytes(32).toString('base64url');
    if (c.includes('-') && c.includes('_')) return c;
  }
}

const SPELLINGS: Array<[string, (c: string) => string]> = [
  ['URL-encoded twice', (c) => `talos.config=https%253A%252F%252Fspore%252Fv1%252Fconfig%252F${c}`],
  ['URL-encoded three times', (c) => `u=https%25253A%25252F%25252Fspore%25252Fv1%25252Fseed%25252F${c}`],
  ['JSON \\u002F escapes', (c) => `{"url":"https:\\u002F\\u002Fspore\\u002Fv1\\u002Fconfig\\u002F${c}"}`],
  ['JSON \\u002f escapes, escaped again', (c) => `{"msg":"{\\"url\\":\\"\\\\u002fv1\\\\u002fconfig\\\\u002f${c}\\"}"}`],
  ['a code and then -', (c) => `/v1/config/${c}-`],
  ['a code and then _', (c) => `wrote /worker/fleet/${c}_tmp`],
  ['- and then a code', (c) => `install-${c} done`],
  ['a code with its own characters encoded', (c) => `/v1/config/${c.replaceAll('-', '%2D').replaceAll('_', '%5F')}`],
  ['a code in a URL-encoded JSON string', (c) => `q=%7B%22url%22%3A%22%5Cu002Fv1%5Cu002Fconfig%5Cu002F${c}%22%7D`],
];

describe('install codes in HookOS syslog', () => {
  it.each(SPELLINGS)('blanks a code %s', async (_name, spell) => {
    const { journal, receiver } = await rig();
    const c = code();
    await logger('127.0.0.1', receiver.port, ['--rfc5424', '-t', 'tink-worker'], spell(c));
    await journal.waitFor(1);
    const entry = journal.entries[0]!;
    expect(entry.MESSAGE).toContain('<install code>');
    expect(JSON.stringify(entry)).not.toContain(c);
    // No piece of it either: its first and last 20 characters.
    expect(JSON.stringify(entry)).not.toContain(c.slice(0, 20));
    expect(JSON.stringify(entry)).not.toContain(c.slice(-20));
  });

  it('blanks a code in the structured data', async () => {
    const { journal, receiver } = await rig();
    const c = code();
    await logger('127.0.0.1', receiver.port, ['--rfc5424', '-t', 'tink-worker', '--sd-id', 'fleet@32473', '--sd-param', `url="/v1/config/${c}"`], 'fetched');
    await journal.waitFor(1);
    expect(JSON.stringify(journal.entries[0])).not.toContain(c);
    expect(journal.entries[0]!.HOOKOS_STRUCTURED_DATA).toContain('<install code>');
  });

  it('keeps what only looks long: hashes, container ids, UUIDs, paths', async () => {
    const { journal, receiver } = await rig();
    const hash = randomBytes(32).toString('hex');
    const kept = [
      `pulled sha256:${hash}`,
      `overlay2/${hash.toUpperCase()} mounted`,
      'boot c2a8a028-2f5e-4fd5-83f9-b072486a55e2 c2a8a028-2f5e-4fd5-83f9-b072486a55e2',
      'wipe: /dev/disk/by-id/nvme-Samsung_SSD_980_1TB_S64ANS0T123456 reports S4EV',
      '100%25 done \\u0041',
      `padding ${'x'.repeat(60)}${'A'.repeat(50)}`,
    ];
    for (const line of kept) await logger('127.0.0.1', receiver.port, ['--rfc5424', '-t', 'wipe-disk'], line);
    await journal.waitFor(kept.length);
    expect(journal.entries.map((e) => e.MESSAGE)).toEqual(kept);
  });
});

/**
 * The parser and the entry it leads to, under hostile input: rsyslog's fuzz corpus, mutations of
 * it, random bytes and shapes made to find quadratic paths. Every datagram must give a message and
 * a journal entry journald would take, quickly (a hang check, not a figure: real parses take µs).
 */
import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hookosEntry } from '../../verifier/syslog/hookos-entry.js';
import { parseSyslog } from '../../verifier/syslog/parse.js';
import { TESTDATA } from '../testdata.js';
import { decodeJournalEntry } from './journal-decode.js';

const CORPUS_DIR = `${TESTDATA}syslog/rsyslog/fuzz-corpus/`;
const CORPUS = readdirSync(CORPUS_DIR).map((name) => readFileSync(CORPUS_DIR + name));
const MAX_UDP = 65_507;
const BOUND_MS = 250;

function survives(datagram: Uint8Array): void {
  const start = performance.now();
  const msg = parseSyslog(datagram);
  const entry = hookosEntry(msg, '10.0.0.1');
  const took = performance.now() - start;
  expect(took, `${datagram.length} bytes took ${took} ms`).toBeLessThan(BOUND_MS);
  expect(msg.severity).toBeLessThanOrEqual(7);
  expect(msg.facility).toBeLessThanOrEqual(23);
  const fields = decodeJournalEntry(entry);
  expect(fields.filter(([n]) => n === 'MESSAGE')).toHaveLength(1);
  expect(entry.length).toBeLessThan(2 * 8192 + 1024);
}

const mutated = fc.constantFrom(...CORPUS).chain((bytes) =>
  fc.oneof(
    fc.array(fc.tuple(fc.nat({ max: bytes.length - 1 }), fc.nat({ max: 255 })), { minLength: 1, maxLength: 8 }).map((edits) => {
      const copy = Buffer.from(bytes);
      for (const [at, v] of edits) copy[at] = v;
      return copy;
    }),
    fc.nat({ max: bytes.length }).map((n) => bytes.subarray(0, n)),
    fc
      .tuple(fc.nat({ max: bytes.length }), fc.uint8Array({ maxLength: 64 }))
      .map(([at, extra]) => Buffer.concat([bytes.subarray(0, at), extra, bytes.subarray(at)])),
  ),
);

/** Long runs of what each part of the parser loops over. */
const PATHOLOGICAL = [
  ' '.repeat(MAX_UDP),
  '\n'.repeat(MAX_UDP - 1) + 'x',
  `<13>${' '.repeat(MAX_UDP - 10)}`,
  `<13>1 - - - - - ${'['.repeat(MAX_UDP - 20)}`,
  `<13>1 - - - - - [a b="${'\\'.repeat(MAX_UDP - 30)}`,
  `<13>1 - - - - - ${'[a b="c"]'.repeat(7000)}`,
  `<13>1 - - - - - [a${' b="c"'.repeat(9000)}]`,
  `<13>Nov 30 07:43:45 ${':'.repeat(MAX_UDP - 30)}`,
  `<13>Nov 30 07:43:45 ${'a['.repeat(30_000)}`,
  `<13>${'Nov 30 07:43:45 '.repeat(4000)}`,
  `<13>${'1 '.repeat(30_000)}`,
  '<'.repeat(MAX_UDP),
  `<13>${'\u00e4'.repeat(30_000)}`,
];

describe('syslog parsing under fuzzing', () => {
  it.each(CORPUS.map((b, i) => [i, b] as const))('corpus file %i parses', (_i, bytes) => {
    survives(bytes);
  });

  it('survives mutations of the corpus', () => {
    fc.assert(
      fc.property(mutated, (b) => survives(b)),
      { numRuns: 3000 },
    );
  });

  it('survives random bytes, with and without a PRI', () => {
    const prefix = fc.constantFrom('', '<13>', '<13>1 ', '<165>1 - - - - - ', '<13>Nov 30 07:43:45 ');
    fc.assert(
      fc.property(prefix, fc.uint8Array({ maxLength: 2048 }), (p, tail) => survives(Buffer.concat([Buffer.from(p), tail]))),
      { numRuns: 3000 },
    );
  });

  it.each(PATHOLOGICAL.map((s) => [s.slice(0, 24), s] as const))('%j... (64 KiB) in linear time', (_head, s) => {
    survives(Buffer.from(s, 'latin1').subarray(0, MAX_UDP));
  });
});

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { fromHex } from '../../shared/bytes/hex.js';
import { parseEventLog } from '../../shared/eventlog/parse.js';
import { replay } from '../../shared/eventlog/replay.js';
import * as T from '../../shared/eventlog/types.js';
import { comparePcrs } from '../../shared/eventlog/verify.js';
import { EXPECTED_PCRS, eventBytes, rebuild, toolsLog } from './fixtures.js';

const EBS_NOTE = /PCR 5 matches only with the "Exit Boot Services Invocation" and "Exit Boot Services Returned with Success" events appended/;

function quoteOf(name: string, bank: string): Map<number, Uint8Array> {
  return new Map(Object.entries(EXPECTED_PCRS[name]![bank]!).map(([pcr, hex]) => [Number(pcr), fromHex(hex)]));
}

function sha256(...parts: (Uint8Array | string)[]): Uint8Array {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return new Uint8Array(h.digest());
}

describe('comparePcrs', () => {
  it('accepts a quote the log explains', () => {
    expect(comparePcrs(parseEventLog(toolsLog('event-bootorder.bin')), 'sha1', quoteOf('event-bootorder.bin', 'sha1'))).toEqual({
      ok: true,
      mismatched: [],
      notes: [],
    });
  });

  it('recognises firmware that measured ExitBootServices into PCR 5 without logging it', () => {
    // sd-boot-fedora37 logs both events; drop them and quote what the TPM really holds.
    const full = parseEventLog(toolsLog('event-sd-boot-fedora37.bin'));
    const actions = [...full].filter((e) => e.pcr === 5 && e.type === T.EV_EFI_ACTION).map((e) => e.index);
    expect(actions).toHaveLength(2);
    const stripped = parseEventLog(rebuild(eventBytes(full).filter((_, i) => !actions.includes(i))));
    const quote = replay(full).get('sha256')!;
    expect(replay(stripped).get('sha256')!.get(5)).not.toEqual(quote.get(5));
    const result = comparePcrs(stripped, 'sha256', quote);
    expect(result.ok).toBe(true);
    expect(result.mismatched).toEqual([]);
    expect(result.notes).toHaveLength(1);
    expect(result.notes[0]).toMatch(EBS_NOTE);
  });

  it('recognises it on a real log that lacks the events (arch-linux), computing the quote by hand', () => {
    const quote = quoteOf('event-arch-linux.bin', 'sha256');
    let pcr5 = quote.get(5)!;
    for (const action of ['Exit Boot Services Invocation', 'Exit Boot Services Returned with Success']) pcr5 = sha256(pcr5, sha256(action));
    quote.set(5, pcr5);
    const result = comparePcrs(parseEventLog(toolsLog('event-arch-linux.bin')), 'sha256', quote);
    expect(result).toMatchObject({ ok: true, mismatched: [] });
    expect(result.notes.join('\n')).toMatch(EBS_NOTE);
  });

  it('does not forgive a PCR 5 that only the ExitBootServices events cannot explain', () => {
    const quote = quoteOf('event-arch-linux.bin', 'sha256');
    quote.set(5, sha256(quote.get(5)!, sha256('Exit Boot Services Invocation')));
    expect(comparePcrs(parseEventLog(toolsLog('event-arch-linux.bin')), 'sha256', quote)).toEqual({ ok: false, mismatched: [5], notes: [] });
  });

  it('does not append the events to a log that already has them', () => {
    const full = parseEventLog(toolsLog('event-sd-boot-fedora37.bin'));
    const quote = new Map(replay(full).get('sha256')!);
    let pcr5 = quote.get(5)!;
    for (const action of ['Exit Boot Services Invocation', 'Exit Boot Services Returned with Success']) pcr5 = sha256(pcr5, sha256(action));
    quote.set(5, pcr5);
    expect(comparePcrs(full, 'sha256', quote).mismatched).toEqual([5]);
  });

  it('reports a genuinely wrong PCR', () => {
    const quote = quoteOf('event-gce-ubuntu-2104-log.bin', 'sha384');
    const wrong = new Uint8Array(quote.get(4)!);
    wrong[0]! ^= 1;
    quote.set(4, wrong);
    expect(comparePcrs(parseEventLog(toolsLog('event-gce-ubuntu-2104-log.bin')), 'sha384', quote)).toEqual({ ok: false, mismatched: [4], notes: [] });
  });

  it('does not judge quoted PCRs the log has no events for (IMA’s PCR 10)', () => {
    const quote = quoteOf('event-moklisttrusted.bin', 'sha256');
    quote.set(10, sha256('whatever IMA measured'));
    quote.set(16, new Uint8Array(32));
    expect(comparePcrs(parseEventLog(toolsLog('event-moklisttrusted.bin')), 'sha256', quote)).toEqual({
      ok: true,
      mismatched: [],
      notes: ['PCR 10, 16 have no events in the log: not judged'],
    });
  });

  it('counts a PCR with events that the quote lacks as a mismatch', () => {
    const quote = quoteOf('event-postcode.bin', 'sha256');
    quote.delete(7);
    const result = comparePcrs(parseEventLog(toolsLog('event-postcode.bin')), 'sha256', quote);
    expect(result).toEqual({ ok: false, mismatched: [7], notes: ['PCR 7 has events in the log but is not in the quote'] });
  });

  it('fails every measured PCR of a bank the log cannot replay', () => {
    const result = comparePcrs(parseEventLog(toolsLog('event-uefivar.bin')), 'sha384', new Map());
    expect(result.ok).toBe(false);
    expect(result.mismatched).toEqual([7]);
    expect(result.notes).toEqual(['event 1 has no sha384 digest, so the sha384 bank cannot be replayed']);
  });
});

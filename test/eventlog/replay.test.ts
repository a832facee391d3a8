import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { toHex } from '../../shared/bytes/hex.js';
import { FleetError, ParseError } from '../../shared/errors.js';
import { parseEventLog } from '../../shared/eventlog/parse.js';
import { replay, replayBank } from '../../shared/eventlog/replay.js';
import { EV_NO_ACTION } from '../../shared/eventlog/types.js';
import { EXPECTED_PCRS, eventBytes, keylimeLog, rebuild, toolsLog } from './fixtures.js';

function hexBanks(banks: Map<string, Map<number, Uint8Array>>): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const [bank, values] of banks) out[bank] = Object.fromEntries([...values].map(([pcr, v]) => [String(pcr), toHex(v)]));
  return out;
}

/** A crypto-agile StartupLocality EV_NO_ACTION event on PCR 0 with zero digests for `sizes`. */
function startupLocalityEvent(locality: number, banks: { algId: number; size: number }[]): Uint8Array {
  const data = Buffer.concat([Buffer.from('StartupLocality\0', 'ascii'), Buffer.from([locality])]);
  const parts: Buffer[] = [Buffer.alloc(12)];
  parts[0]!.writeUInt32LE(0, 0);
  parts[0]!.writeUInt32LE(EV_NO_ACTION, 4);
  parts[0]!.writeUInt32LE(banks.length, 8);
  for (const b of banks) {
    const id = Buffer.alloc(2);
    id.writeUInt16LE(b.algId);
    parts.push(id, Buffer.alloc(b.size));
  }
  const size = Buffer.alloc(4);
  size.writeUInt32LE(data.length);
  parts.push(size, data);
  return new Uint8Array(Buffer.concat(parts));
}

describe('replay', () => {
  describe.each(Object.keys(EXPECTED_PCRS))('%s', (name) => {
    it('reproduces every PCR of every bank tpm2-tools reports', () => {
      expect(hexBanks(replay(parseEventLog(toolsLog(name))))).toEqual(EXPECTED_PCRS[name]);
    });
  });

  it('starts PCR 0 from the StartupLocality value', () => {
    const log = parseEventLog(toolsLog('event-arch-linux.bin'));
    const events = eventBytes(log);
    const expected = EXPECTED_PCRS['event-arch-linux.bin']!;
    for (const locality of [0, 3, 4]) {
      const withLocality = parseEventLog(rebuild([events[0]!, startupLocalityEvent(locality, [...log.banks]), ...events.slice(1)]));
      expect(withLocality.startupLocality).toBe(locality);
      const pcr0 = replay(withLocality).get('sha256')!.get(0)!;
      // Fold PCR 0 by hand from the initial value the spec gives for this locality.
      let value = Buffer.alloc(32);
      value[31] = locality;
      for (const e of withLocality)
        if (e.pcr === 0 && e.type !== EV_NO_ACTION) value = createHash('sha256').update(value).update(e.digests.get('sha256')!).digest();
      expect(toHex(pcr0)).toBe(value.toString('hex'));
      expect(toHex(pcr0) === expected.sha256!['0']).toBe(locality === 0);
    }
  });

  it('refuses a StartupLocality event after PCR 0 was extended, or a second one', () => {
    const log = parseEventLog(toolsLog('event-arch-linux.bin'));
    const events = eventBytes(log);
    const locality = startupLocalityEvent(3, [...log.banks]);
    expect(() => parseEventLog(rebuild([events[0]!, events[1]!, locality, ...events.slice(2)]))).toThrow(/after PCR 0 was extended/);
    expect(() => parseEventLog(rebuild([events[0]!, locality, locality, ...events.slice(1)]))).toThrow(/second StartupLocality/);
    expect(() => parseEventLog(rebuild([events[0]!, startupLocalityEvent(2, [...log.banks]), ...events.slice(1)]))).toThrow(ParseError);
  });

  it('honours the StartupLocality 3 event of a real log (keylime)', () => {
    const log = parseEventLog(keylimeLog('binary_bios_measurements'));
    expect(log.startupLocality).toBe(3);
    let value = Buffer.alloc(20);
    value[19] = 3;
    for (const e of log) if (e.pcr === 0 && e.type !== EV_NO_ACTION) value = createHash('sha1').update(value).update(e.digests.get('sha1')!).digest();
    expect(toHex(replay(log).get('sha1')!.get(0)!)).toBe(value.toString('hex'));
  });

  it('leaves out a declared bank the events carry no digests for, and says why', () => {
    // event-uefivar.bin declares sha1, sha256, sha384 and sha512 but its event has two digests.
    const log = parseEventLog(toolsLog('event-uefivar.bin'));
    expect(log.banks.map((b) => b.name)).toEqual(['sha1', 'sha256', 'sha384', 'sha512']);
    expect([...replay(log).keys()]).toEqual(['sha1', 'sha256']);
    expect(() => replayBank(log, 'sha384')).toThrow(/event 1 has no sha384 digest/);
    expect(() => replayBank(log, 'sm3_256')).toThrow(FleetError);
  });

  it('only reports PCRs that have extended events', () => {
    const values = replay(parseEventLog(toolsLog('event-uefiaction.bin')));
    expect([...values.get('sha256')!.keys()]).toEqual([4]);
  });
});

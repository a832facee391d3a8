import { describe, expect, it } from 'vitest';
import { ParseError } from '../../shared/errors.js';
import { parseEventLog } from '../../shared/eventlog/parse.js';
import { EV_NO_ACTION, EV_SEPARATOR, eventTypeName } from '../../shared/eventlog/types.js';
import { EXPECTED_PCRS, eventBytes, findEvent, keylimeLog, prettyYaml, rebuild, toolsLog, withType } from './fixtures.js';

function parseError(bytes: Uint8Array): ParseError {
  try {
    parseEventLog(bytes);
  } catch (err) {
    if (err instanceof ParseError) return err;
    throw err;
  }
  throw new Error('parsed without an error');
}

/** A copy of `bytes` with the u32 at `offset` replaced. */
function patchU32(bytes: Uint8Array, offset: number, value: number): Uint8Array {
  const copy = new Uint8Array(bytes);
  new DataView(copy.buffer).setUint32(offset, value, true);
  return copy;
}

describe('parseEventLog', () => {
  it('reads keylime’s logs with the event counts keylime asserts (the Spec ID header counts)', () => {
    const cases = [
      ['binary_bios_measurements-secureboot', 99, ['sha256']],
      ['binary_bios_measurements', 121, ['sha1', 'sha256']],
      ['mb_log.b64', 102, ['sha256']],
    ] as const;
    for (const [name, events, banks] of cases) {
      const log = parseEventLog(keylimeLog(name));
      expect(log.format).toBe('crypto-agile');
      expect(log.length).toBe(events);
      expect(log.banks.map((b) => b.name)).toEqual(banks);
      expect(log.event(0).typeName).toBe('EV_NO_ACTION');
      expect(log.specId?.algorithms.length).toBe(banks.length);
    }
  });

  it('reads the legacy SHA-1 format', () => {
    const log = parseEventLog(toolsLog('event-uefi-sha1-log.bin'));
    expect(log.format).toBe('sha1-legacy');
    expect(log.specId).toBeNull();
    expect(log.banks.map((b) => b.name)).toEqual(['sha1']);
    expect(log.event(0).typeName).toBe('EV_S_CRTM_VERSION');
  });

  describe.each(Object.keys(EXPECTED_PCRS))('%s', (name) => {
    it('has the event types tpm2-tools decodes, in order', () => {
      const types = [...prettyYaml(name).matchAll(/^\s*EventType: (\S+)$/gm)].map((m) => m[1]);
      expect(Array.from(parseEventLog(toolsLog(name)), (e) => eventTypeName(e.type))).toEqual(types);
    });
  });

  it('keeps event data and digests as views into the input, not copies', () => {
    const bytes = keylimeLog('binary_bios_measurements');
    const e = parseEventLog(bytes).event(5);
    expect(e.data.buffer).toBe(bytes.buffer);
    expect(e.digests.get('sha256')!.buffer).toBe(bytes.buffer);
  });

  it('refuses an empty log with eventlog-empty', () => {
    const err = parseError(keylimeLog('binary_bios_measurements-empty'));
    expect(err.code).toBe('eventlog-empty');
    expect(err.message).toMatch(/empty/);
  });

  it('refuses keylime’s bogus text log with eventlog-malformed', () => {
    const err = parseError(keylimeLog('binary_bios_measurements-bogus'));
    expect(err.code).toBe('eventlog-malformed');
    expect(err.message).toMatch(/^event log: /);
    expect(err.offset).toBeTypeOf('number');
  });

  it('refuses a Spec ID event whose EventSize does not hold its vendorInfo (tpm2-tools accepts it)', () => {
    expect(parseError(toolsLog('specid-vendordata.bin')).message).toMatch(/vendorInfo needs 4 bytes/);
  });

  it('refuses every truncation of a real log', () => {
    const bytes = toolsLog('event-sd-boot-fedora37.bin');
    const log = parseEventLog(bytes);
    const ends = new Set(Array.from(log, (e) => e.offset + e.size));
    for (let n = 1; n < bytes.length; n++) {
      if (ends.has(n)) expect(parseEventLog(bytes.subarray(0, n)).length).toBeGreaterThan(0);
      else expect(parseError(bytes.subarray(0, n)).code).toBe('eventlog-malformed');
    }
  });

  describe('refuses lying crypto-agile fields', () => {
    const bytes = toolsLog('event-sd-boot-fedora37.bin'); // sha256 only
    const log = parseEventLog(bytes);
    const e = log.event(4);

    it('a PCR index above 23', () => {
      expect(parseError(patchU32(bytes, e.offset, 24)).message).toMatch(/PCR 24, above 23/);
    });
    it('more digests than the Spec ID event declares', () => {
      expect(parseError(patchU32(bytes, e.offset + 8, 2)).message).toMatch(/2 digests, the Spec ID event declares 1/);
    });
    it('a huge digest count', () => {
      expect(parseError(patchU32(bytes, e.offset + 8, 0xffffffff)).code).toBe('eventlog-malformed');
    });
    it('no digests for a measured event', () => {
      expect(parseError(patchU32(bytes, e.offset + 8, 0)).message).toMatch(/no digests/);
    });
    it('a digest algorithm the Spec ID event does not declare', () => {
      const copy = new Uint8Array(bytes);
      new DataView(copy.buffer).setUint16(e.offset + 12, 0x0004, true); // sha1
      expect(parseError(copy).message).toMatch(/algorithm 0x4, which the Spec ID event does not declare/);
    });
    it('an event size past the end', () => {
      const sizeAt = e.offset + 12 + 2 + 32;
      expect(parseError(patchU32(bytes, sizeAt, 0x7fffffff)).message).toMatch(/event data needs 2147483647 bytes/);
    });
  });

  it('refuses two digests of one algorithm', () => {
    const bytes = toolsLog('event-arch-linux.bin'); // sha1, sha256
    const e = parseEventLog(bytes).event(3);
    const copy = new Uint8Array(bytes);
    new DataView(copy.buffer).setUint16(e.offset + 12 + 2 + 20, 0x0004, true);
    expect(parseError(copy).message).toMatch(/two sha1 digests/);
  });

  it('refuses a Spec ID event with a wrong digest size or an absurd algorithm count', () => {
    const bytes = toolsLog('event-arch-linux.bin');
    const specAt = 32; // after the legacy-format header of event 0
    const wrongSize = new Uint8Array(bytes);
    new DataView(wrongSize.buffer).setUint16(specAt + 30, 21, true); // sha1 declared as 21 bytes
    expect(parseError(wrongSize).message).toMatch(/declares digest size 21/);
    expect(parseError(patchU32(bytes, specAt + 24, 1000)).message).toMatch(/numberOfAlgorithms 1000/);
  });

  it('accepts EV_NO_ACTION on any PCR index, but nothing else above 23', () => {
    const log = parseEventLog(toolsLog('event-arch-linux.bin'));
    const events = eventBytes(log);
    const separator = events[findEvent(log, (e) => e.type === EV_SEPARATOR)]!;
    const noAction = patchU32(withType(separator, EV_NO_ACTION), 0, 0xffffffff);
    expect(parseEventLog(rebuild([...events, noAction])).length).toBe(log.length + 1);
    expect(() => parseEventLog(rebuild([...events, patchU32(separator, 0, 0xffffffff)]))).toThrow(/above 23/);
  });
});

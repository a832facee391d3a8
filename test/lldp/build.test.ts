/** buildLldpFrame writes the bytes 802.1AB prescribes, and parseLldpFrame reads back what it was given. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toHex } from '../../shared/bytes/hex.js';
import { findDecoded } from '../../shared/lldp/org.js';
import { parseLldpFrame } from '../../shared/lldp/parse.js';
import { buildLldpFrame, type LldpFrameOptions } from './frame.js';

describe('buildLldpFrame', () => {
  it('writes the frame byte for byte', () => {
    const frame = buildLldpFrame({ chassisMac: '24:5a:4c:00:00:01', portId: 'Port 7' });
    expect(toHex(frame)).toBe(
      [
        '0180c200000e', // nearest-bridge group address
        '245a4c000001', // source: the chassis MAC
        '88cc',
        '0207' + '04' + '245a4c000001', // Chassis ID, subtype MAC
        '0407' + '05' + Buffer.from('Port 7').toString('hex'), // Port ID, subtype interface name
        '0602' + '0078', // TTL 120
        '0000', // End
      ].join(''),
    );
  });

  it('round-trips every field', () => {
    const opts: LldpFrameOptions = {
      srcMac: '24:5a:4c:00:00:09',
      chassisMac: '24:5a:4c:00:00:01',
      portId: 'Port 7',
      portIdSubtype: 7,
      ttl: 30,
      portDescription: 'rack 1, U12',
      systemName: 'usw-rack-1',
      vlan: 42,
    };
    const f = parseLldpFrame(buildLldpFrame(opts));
    expect(f).toMatchObject({
      ethernet: { destination: '01:80:c2:00:00:0e', source: '24:5a:4c:00:00:09', vlanIds: [] },
      chassisId: { subtype: 4, subtypeName: 'mac', value: '24:5a:4c:00:00:01' },
      portId: { subtype: 7, subtypeName: 'local', value: 'Port 7' },
      ttl: 30,
      portDescription: 'rack 1, U12',
      systemName: 'usw-rack-1',
      problems: [],
    });
    expect(findDecoded(f, 'dot1-port-vlan')?.vlanId).toBe(42);
  });

  it('writes MAC and IPv4 Port IDs as bytes', () => {
    expect(parseLldpFrame(buildLldpFrame({ chassisMac: '02:00:00:00:00:01', portId: '02:00:00:00:00:02', portIdSubtype: 3 })).portId).toEqual({
      subtype: 3,
      subtypeName: 'mac',
      value: '02:00:00:00:00:02',
    });
    expect(parseLldpFrame(buildLldpFrame({ chassisMac: '02:00:00:00:00:01', portId: '192.0.2.7', portIdSubtype: 4 })).portId.value).toBe('192.0.2.7');
  });

  it('refuses what it cannot write', () => {
    expect(() => buildLldpFrame({ chassisMac: 'not a mac', portId: 'p' })).toThrow(RangeError);
    expect(() => buildLldpFrame({ chassisMac: '02:00:00:00:00:01', portId: '' })).toThrow(RangeError);
    expect(() => buildLldpFrame({ chassisMac: '02:00:00:00:00:01', portId: 'x'.repeat(256) })).toThrow(RangeError);
    expect(() => buildLldpFrame({ chassisMac: '02:00:00:00:00:01', portId: '2001:db8::1', portIdSubtype: 4 })).toThrow(RangeError);
  });

  it('round-trips arbitrary values', () => {
    const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');
    const mac = fc.uint8Array({ minLength: 6, maxLength: 6 }).map((b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join(':'));
    // IDs of the text subtypes are printable text (anything else is shown as hex, see ids.ts).
    const printable = fc
      .string({ unit: 'grapheme', minLength: 1, maxLength: 60 })
      .filter((s) => byteLength(s) <= 255 && !/[\u0000-\u001f\u007f-\u009f]/.test(s));
    // Free text: anything but a trailing NUL, which senders use as padding.
    const text = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 80 }).filter((s) => byteLength(s) <= 255 && !s.endsWith('\u0000'));
    const options = fc.record(
      {
        srcMac: mac,
        chassisMac: mac,
        portId: printable,
        portIdSubtype: fc.constantFrom(1, 2, 5, 6, 7),
        ttl: fc.nat({ max: 0xffff }),
        portDescription: text,
        systemName: text,
        vlan: fc.integer({ min: 1, max: 4094 }),
      },
      { requiredKeys: ['chassisMac', 'portId'] },
    );
    fc.assert(
      fc.property(options, (opts) => {
        const f = parseLldpFrame(buildLldpFrame(opts));
        expect(f.problems).toEqual([]);
        expect(f.ethernet!.source).toBe(opts.srcMac ?? opts.chassisMac);
        expect(f.chassisId.value).toBe(opts.chassisMac);
        expect(f.portId.subtype).toBe(opts.portIdSubtype ?? 5);
        expect(f.portId.value).toBe(opts.portId);
        expect(f.ttl).toBe(opts.ttl ?? 120);
        expect(f.portDescription).toBe(opts.portDescription);
        expect(f.systemName).toBe(opts.systemName);
        expect(findDecoded(f, 'dot1-port-vlan')?.vlanId).toBe(opts.vlan);
      }),
      { numRuns: 500 },
    );
  });
});

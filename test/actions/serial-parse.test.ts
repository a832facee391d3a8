import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cleanSerial, wwidSerial } from '../../images/tink-reprovision-tools/disk/serial.js';
import { vpdPg80Serial } from '../../images/tink-reprovision-tools/disk/vpd.js';
import { ParseError } from '../../shared/errors.js';
import { vpdPage } from './fake-sysfs.js';

describe('VPD page 0x80', () => {
  it('gives the serial a SATA disk reports, without the padding', () => {
    expect(vpdPg80Serial(vpdPage('QM00005'))).toBe('QM00005');
    // As a real disk answers: type 0 (disk), page 0x80, length 20, the serial right-justified.
    const wd = Buffer.concat([Buffer.from([0, 0x80, 0, 20]), Buffer.from('     WD-WCC4N0123456')]);
    expect(vpdPg80Serial(wd)).toBe('WD-WCC4N0123456');
  });

  it('reads an empty or all-padding serial as none', () => {
    expect(vpdPg80Serial(Buffer.from([0, 0x80, 0, 0]))).toBeNull();
    expect(vpdPg80Serial(Buffer.concat([Buffer.from([0, 0x80, 0, 4]), Buffer.from('  \0\0')]))).toBeNull();
  });

  it('refuses a short header, another page, a length past the end and unprintable bytes', () => {
    for (const page of [
      Buffer.from([0, 0x80, 0]),
      Buffer.from([0, 0x83, 0, 1, 0x41]),
      Buffer.from([0, 0x80, 0, 9, 0x41]),
      Buffer.from([0, 0x80, 0, 3, 0x41, 0x07, 0x42]),
    ]) {
      expect(() => vpdPg80Serial(page)).toThrow(ParseError);
    }
  });

  it('turns any bytes into a serial or a typed error, never anything else (fuzz)', () => {
    const headed = fc
      .tuple(fc.integer({ min: 0, max: 255 }), fc.uint8Array({ maxLength: 64 }))
      .map(([len, body]) => Buffer.concat([Buffer.from([0, 0x80, 0, len]), body]));
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 80 }), headed), (bytes) => {
        try {
          const s = vpdPg80Serial(bytes);
          expect(s === null || (/^[\x20-\x7e]+$/.test(s) && s === s.trim())).toBe(true);
        } catch (err) {
          expect(err).toBeInstanceOf(ParseError);
          expect((err as ParseError).code).toMatch(/^(vpd|serial)-malformed$/);
        }
      }),
      { numRuns: 5000 },
    );
  });
});

describe('serials in sysfs attributes and wwids', () => {
  it('trims the padding firmware adds and refuses control bytes', () => {
    expect(cleanSerial('S4EVNF0M123456      \n')).toBe('S4EVNF0M123456');
    expect(cleanSerial(' \0 ')).toBeNull();
    expect(() => cleanSerial('AB\x01CD')).toThrow(ParseError);
  });

  it('finds the serial in a t10 (ATA) and an NVMe wwid, and none in a WWN', () => {
    expect(wwidSerial('t10.ATA     QEMU HARDDISK                           QM00005\n')).toBe('QM00005');
    expect(wwidSerial(`nvme.1b36-${Buffer.from('deadbeef            ').toString('hex')}-51454d55204e564d65204374726c-00000001`)).toBe('deadbeef');
    expect(wwidSerial('naa.5000c500a1b2c3d4')).toBeNull();
    expect(wwidSerial('eui.0025388b91b2c3d4')).toBeNull();
    expect(() => wwidSerial('what is this')).toThrow(ParseError);
  });

  it('turns any text into a serial, none, or a typed error (fuzz)', () => {
    const wwids = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.string({ maxLength: 60 }).map((s) => `t10.${s}`),
      fc
        .tuple(fc.uint8Array({ maxLength: 20 }), fc.uint8Array({ maxLength: 4 }))
        .map(([a, b]) => `nvme.1b36-${Buffer.from(a).toString('hex')}-${Buffer.from(b).toString('hex')}-00000001`),
    );
    fc.assert(
      fc.property(wwids, (w) => {
        for (const f of [wwidSerial, cleanSerial]) {
          try {
            const s = f(w);
            expect(s === null || /^[\x20-\x7e]+$/.test(s)).toBe(true);
          } catch (err) {
            expect(err).toBeInstanceOf(ParseError);
          }
        }
      }),
      { numRuns: 5000 },
    );
  });
});

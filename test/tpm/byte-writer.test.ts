import { describe, expect, it } from 'vitest';
import { ByteWriter } from '../../shared/bytes/writer.js';

describe('ByteWriter', () => {
  it('keeps every write that makes it grow, of each width', () => {
    const w = new ByteWriter(1)
      .u8(0xaa)
      .u16(0x0102)
      .u32(0x03040506)
      .u64(0x0708090a0b0c0d0en)
      .bytes(new Uint8Array([0xee, 0xff]))
      .tpm2b(new Uint8Array([0x11]));
    expect(Buffer.from(w.finish()).toString('hex')).toBe('aa' + '0102' + '03040506' + '0708090a0b0c0d0e' + 'eeff' + '000111');
  });

  it('grows from an empty buffer too', () => {
    expect(Buffer.from(new ByteWriter(0).u32(0xdeadbeef).finish()).toString('hex')).toBe('deadbeef');
  });
});

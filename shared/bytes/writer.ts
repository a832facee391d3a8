/** A growable big-endian byte builder for TPM command marshalling. */
export class ByteWriter {
  private buf: Uint8Array;
  private view: DataView;
  length = 0;

  constructor(capacity = 256) {
    this.buf = new Uint8Array(capacity);
    this.view = new DataView(this.buf.buffer);
  }

  /**
   * Makes room for n more bytes and answers where they go. Call it before reading this.view or
   * this.buf for the write: growing replaces both, and a write through the old one is lost.
   */
  private room(n: number): number {
    if (this.length + n > this.buf.length) {
      const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + n));
      next.set(this.buf.subarray(0, this.length));
      this.buf = next;
      this.view = new DataView(next.buffer);
    }
    const at = this.length;
    this.length += n;
    return at;
  }

  u8(v: number): this {
    const at = this.room(1);
    this.view.setUint8(at, v);
    return this;
  }
  u16(v: number): this {
    const at = this.room(2);
    this.view.setUint16(at, v);
    return this;
  }
  u32(v: number): this {
    const at = this.room(4);
    this.view.setUint32(at, v >>> 0);
    return this;
  }
  u64(v: bigint): this {
    const at = this.room(8);
    this.view.setBigUint64(at, v);
    return this;
  }
  bytes(b: Uint8Array): this {
    const at = this.room(b.length);
    this.buf.set(b, at);
    return this;
  }
  /** TPM2B: u16 size then the bytes. */
  tpm2b(b: Uint8Array): this {
    if (b.length > 0xffff) throw new RangeError(`TPM2B of ${b.length} bytes exceeds 65535`);
    return this.u16(b.length).bytes(b);
  }
  /** Overwrite a u32 already written (the command size in the header). */
  patchU32(at: number, v: number): this {
    this.view.setUint32(at, v >>> 0);
    return this;
  }
  finish(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

/** A growable big-endian byte builder for TPM command marshalling. */
export class ByteWriter {
  private buf: Uint8Array;
  private view: DataView;
  length = 0;

  constructor(capacity = 256) {
    this.buf = new Uint8Array(capacity);
    this.view = new DataView(this.buf.buffer);
  }

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
    this.view.setUint8(this.room(1), v);
    return this;
  }
  u16(v: number): this {
    this.view.setUint16(this.room(2), v);
    return this;
  }
  u32(v: number): this {
    this.view.setUint32(this.room(4), v >>> 0);
    return this;
  }
  u64(v: bigint): this {
    this.view.setBigUint64(this.room(8), v);
    return this;
  }
  bytes(b: Uint8Array): this {
    this.buf.set(b, this.room(b.length));
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

import type { ErrorCode } from '../error-codes.js';
import { ParseError } from '../errors.js';

/**
 * A bounds-checked cursor over bytes. Every read checks the remaining length first and raises a
 * `ParseError` carrying the caller's error code, so a truncated or lying length field can never
 * read past the end. `bytes()` returns views, not copies: parsing stays allocation-light.
 */
export class ByteReader {
  private readonly view: DataView;
  offset = 0;

  constructor(
    readonly buf: Uint8Array,
    /** Stable error code for everything this reader rejects, e.g. `tpm-malformed`. */
    readonly code: ErrorCode,
    /** What is being read, for messages: "TPM response", "event log". */
    readonly what: string,
  ) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  get remaining(): number {
    return this.buf.length - this.offset;
  }

  fail(message: string, at: number = this.offset): never {
    throw new ParseError(this.code, `${this.what}: ${message}`, at);
  }

  private need(n: number, field: string): number {
    if (n > this.remaining) this.fail(`${field} needs ${n} bytes, ${this.remaining} left`);
    const at = this.offset;
    this.offset += n;
    return at;
  }

  u8(field = 'u8'): number {
    return this.view.getUint8(this.need(1, field));
  }
  u16(field = 'u16'): number {
    return this.view.getUint16(this.need(2, field));
  }
  u32(field = 'u32'): number {
    return this.view.getUint32(this.need(4, field));
  }
  u64(field = 'u64'): bigint {
    return this.view.getBigUint64(this.need(8, field));
  }
  u16le(field = 'u16'): number {
    return this.view.getUint16(this.need(2, field), true);
  }
  u32le(field = 'u32'): number {
    return this.view.getUint32(this.need(4, field), true);
  }
  u64le(field = 'u64'): bigint {
    return this.view.getBigUint64(this.need(8, field), true);
  }

  /** A view of the next `n` bytes. */
  bytes(n: number, field = 'bytes'): Uint8Array {
    if (!Number.isInteger(n) || n < 0) this.fail(`${field} has an invalid length ${n}`);
    const at = this.need(n, field);
    return this.buf.subarray(at, at + n);
  }

  /** A TPM2B: big-endian u16 size, then that many bytes. */
  tpm2b(field = 'TPM2B'): Uint8Array {
    return this.bytes(this.u16(`${field} size`), field);
  }

  /** A sub-reader over the next `n` bytes; this reader moves past them. */
  sub(n: number, field: string, what = `${this.what} ${field}`): ByteReader {
    const base = this.offset;
    const r = new ByteReader(this.bytes(n, field), this.code, what);
    r.base = base + this.base;
    return r;
  }

  /** Absolute offset of this reader's start within the outermost buffer, for messages. */
  base = 0;

  /** Refuse trailing bytes: a structure that claims to be complete must be. */
  end(field = 'structure'): void {
    if (this.remaining !== 0) this.fail(`${this.remaining} unexpected bytes after ${field}`);
  }
}

export function toHex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

export function fromHex(s: string): Uint8Array {
  // Buffer stops at the first character that is not hex: a short result means bad input.
  const b = Buffer.from(s, 'hex');
  if (b.length * 2 !== s.length) throw new RangeError(`not hex: ${s.slice(0, 40)}`);
  return new Uint8Array(b.buffer, b.byteOffset, b.length);
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}

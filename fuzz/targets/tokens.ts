/** Dictionary tokens from the numbers a parser reads: each value as a `size`-byte integer in the format's byte order. */
function tokens(size: 2 | 4, littleEndian: boolean, values: readonly number[]): Uint8Array[] {
  return values.map((v) => {
    const b = new Uint8Array(size);
    const view = new DataView(b.buffer);
    if (size === 2) view.setUint16(0, v, littleEndian);
    else view.setUint32(0, v, littleEndian);
    return b;
  });
}

/** Little-endian, as the TCG event log writes its fields. */
export const le = (size: 2 | 4, ...values: number[]): Uint8Array[] => tokens(size, true, values);

/** Big-endian, as the TPM writes its commands and structures. */
export const be = (size: 2 | 4, ...values: number[]): Uint8Array[] => tokens(size, false, values);

/**
 * A small PE32+ EFI application image, built field by field, for the Authenticode digest's tests:
 * two sections of given bytes, and optionally bytes after them (a certificate table's place).
 */
export function peImage(sections: [Uint8Array, Uint8Array], opts: { checksum?: number; trailing?: Uint8Array; certificate?: Uint8Array } = {}): Buffer {
  const fileAlign = 0x200;
  const headers = 0x200;
  const pad = (n: number) => Math.ceil(n / fileAlign) * fileAlign;
  const rawSizes = sections.map((s) => pad(s.length));
  const end = headers + rawSizes[0]! + rawSizes[1]!;
  const trailing = opts.trailing ?? new Uint8Array();
  const cert = opts.certificate ?? new Uint8Array();
  const b = Buffer.alloc(end + trailing.length + cert.length);
  b.writeUInt16LE(0x5a4d, 0); // MZ
  b.writeUInt32LE(0x40, 0x3c);
  b.writeUInt32LE(0x00004550, 0x40); // PE\0\0
  const coff = 0x44;
  b.writeUInt16LE(0x8664, coff); // x86-64
  b.writeUInt16LE(2, coff + 2);
  b.writeUInt16LE(240, coff + 16); // SizeOfOptionalHeader, PE32+ with 16 directories
  b.writeUInt16LE(0x2022, coff + 18); // executable, large address aware, DLL
  const opt = coff + 20;
  b.writeUInt16LE(0x20b, opt);
  b.writeUInt32LE(rawSizes[0]!, opt + 4); // SizeOfCode
  b.writeUInt32LE(0x1000, opt + 16); // AddressOfEntryPoint
  b.writeUInt32LE(0x1000, opt + 20); // BaseOfCode
  b.writeUInt32LE(0x1000, opt + 32); // SectionAlignment
  b.writeUInt32LE(fileAlign, opt + 36);
  b.writeUInt32LE(0x3000, opt + 56); // SizeOfImage
  b.writeUInt32LE(headers, opt + 60);
  b.writeUInt32LE(opts.checksum ?? 0, opt + 64);
  b.writeUInt16LE(10, opt + 68); // EFI application
  b.writeUInt32LE(16, opt + 108); // NumberOfRvaAndSizes
  if (cert.length) {
    b.writeUInt32LE(end + trailing.length, opt + 112 + 32);
    b.writeUInt32LE(cert.length, opt + 112 + 36);
  }
  const table = opt + 240;
  ['.text', '.data'].forEach((name, i) => {
    const at = table + i * 40;
    b.write(name, at, 'latin1');
    b.writeUInt32LE(sections[i]!.length, at + 8); // VirtualSize
    b.writeUInt32LE(0x1000 * (i + 1), at + 12);
    b.writeUInt32LE(rawSizes[i]!, at + 16);
    b.writeUInt32LE(headers + (i ? rawSizes[0]! : 0), at + 20);
    b.writeUInt32LE(i ? 0xc0000040 : 0x60000020, at + 36);
    b.set(sections[i]!, headers + (i ? rawSizes[0]! : 0));
  });
  b.set(trailing, end);
  b.set(cert, end + trailing.length);
  return b;
}

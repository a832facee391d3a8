import { FleetError } from '../errors.js';

/** A PE/COFF image's section: its name and where its raw data lies in the file. */
export interface PeSection {
  name: string;
  at: number;
  /** SizeOfRawData: what the file holds, padded to its alignment. */
  size: number;
  /** VirtualSize: what it holds unpadded (a UKI's .linux is the kernel's own length). */
  virtualSize: number;
}

/** The parts of a PE/COFF image's headers its Authenticode digest and its sections are read from. */
export interface PeHeaders {
  /** The optional header's CheckSum field. */
  checksum: number;
  /** The certificate table's data directory entry (8 bytes), or null when the image has none. */
  certEntry: number | null;
  /** The certificate table's size in the file (0: unsigned). */
  certSize: number;
  /** SizeOfHeaders: where the headers end. */
  headersEnd: number;
  sections: PeSection[];
}

/** Reads the headers of a PE/COFF image; anything that runs past the file is pe-malformed. */
export function readPeHeaders(bytes: Buffer): PeHeaders {
  const fail = (why: string): never => {
    throw new FleetError('pe-malformed', `not a PE/COFF image: ${why}`);
  };
  const u16 = (at: number) => (at + 2 <= bytes.length ? bytes.readUInt16LE(at) : fail(`it ends at byte ${bytes.length}`));
  const u32 = (at: number) => (at + 4 <= bytes.length ? bytes.readUInt32LE(at) : fail(`it ends at byte ${bytes.length}`));
  if (u16(0) !== 0x5a4d) fail('no MZ header');
  const pe = u32(0x3c);
  if (u32(pe) !== 0x00004550) fail('no PE signature where the MZ header points');
  const count = u16(pe + 6);
  const optionalSize = u16(pe + 20);
  const opt = pe + 24;
  const magic = u16(opt);
  if (magic !== 0x10b && magic !== 0x20b) fail(`optional header magic 0x${magic.toString(16)} is neither PE32 nor PE32+`);
  const checksum = opt + 64;
  const headersEnd = u32(opt + 60);
  const directories = magic === 0x10b ? opt + 96 : opt + 112;
  const certEntry = u32(directories - 4) > 4 ? directories + 4 * 8 : null;
  const certSize = certEntry === null ? 0 : u32(certEntry + 4);
  if (headersEnd > bytes.length || (certEntry !== null && certEntry + 8 > headersEnd) || checksum + 4 > headersEnd) fail('its headers run past their own size');
  const table = opt + optionalSize;
  const sections: PeSection[] = [];
  for (let i = 0; i < count; i++) {
    const entry = table + i * 40;
    const size = u32(entry + 16);
    const at = u32(entry + 20);
    if (size > 0 && at + size > bytes.length) fail(`section ${i} runs past its end`);
    sections.push({
      name: bytes
        .subarray(entry, entry + 8)
        .toString('latin1')
        .replace(/\0+$/, ''),
      at,
      size,
      virtualSize: u32(entry + 8),
    });
  }
  return { checksum, certEntry, certSize, headersEnd, sections };
}

import { ParseError } from '../../../shared/errors.js';
import { crc32 } from './crc32.js';

/** GPT partition type GUIDs fleet looks for. */
export const PART_TYPE = {
  efiSystem: 'c12a7328-f81f-11d2-ba4b-00a0c93ec93b',
  linuxRootX86_64: '4f68bce3-e8cd-4db1-96e7-fbcaf984b709',
  linuxFilesystem: '0fc63daf-8483-4772-8e79-3d69d8477de4',
} as const;

export interface GptHeader {
  lbaSize: number;
  entriesLba: bigint;
  entryCount: number;
  entrySize: number;
  entriesCrc: number;
}

export interface GptPartition {
  /** 1-based, as the kernel and efibootmgr's -p count. */
  index: number;
  type: string;
  guid: string;
  firstLba: bigint;
  lastLba: bigint;
  name: string;
}

const SIGNATURE = 'EFI PART';
/** Bounds against a garbage header: the spec's array is 128 entries of 128 bytes. */
const MAX_ARRAY_BYTES = 1 << 20;

/**
 * The primary GPT header in `head` (the disk's first 8 KiB), at LBA 1 of 512- or 4096-byte blocks,
 * or null when there is no GPT. A header with the signature but a bad checksum is malformed.
 */
export function parseGptHeader(head: Uint8Array): GptHeader | null {
  const b = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  const lbaSize = [512, 4096].find((s) => b.length >= s + 92 && b.toString('latin1', s, s + 8) === SIGNATURE);
  if (lbaSize === undefined) return null;
  const h = b.subarray(lbaSize);
  const headerSize = h.readUInt32LE(12);
  if (headerSize < 92 || headerSize > lbaSize) throw new ParseError('gpt-malformed', `GPT header size ${headerSize}`, lbaSize + 12);
  const copy = Buffer.from(h.subarray(0, headerSize));
  copy.writeUInt32LE(0, 16);
  if (crc32(copy) !== h.readUInt32LE(16)) throw new ParseError('gpt-malformed', 'GPT header checksum does not match', lbaSize + 16);
  const entryCount = h.readUInt32LE(80);
  const entrySize = h.readUInt32LE(84);
  if (entrySize < 128 || entrySize % 8 !== 0 || entryCount * entrySize > MAX_ARRAY_BYTES) {
    throw new ParseError('gpt-malformed', `GPT partition array of ${entryCount} entries of ${entrySize} bytes`, lbaSize + 80);
  }
  return { lbaSize, entriesLba: h.readBigUInt64LE(72), entryCount, entrySize, entriesCrc: h.readUInt32LE(88) };
}

/** The used entries of the partition array the header describes (checked against its checksum). */
export function parseGptEntries(header: GptHeader, array: Uint8Array): GptPartition[] {
  const b = Buffer.from(array.buffer, array.byteOffset, array.byteLength);
  if (b.length !== header.entryCount * header.entrySize) throw new ParseError('gpt-malformed', `GPT partition array of ${b.length} bytes`);
  if (crc32(b) !== header.entriesCrc) throw new ParseError('gpt-malformed', 'GPT partition array checksum does not match');
  const parts: GptPartition[] = [];
  for (let i = 0; i < header.entryCount; i++) {
    const e = b.subarray(i * header.entrySize, (i + 1) * header.entrySize);
    const type = guid(e.subarray(0, 16));
    if (type === '00000000-0000-0000-0000-000000000000') continue;
    const name = e.toString('utf16le', 56, 128).replace(/\0.*$/s, '');
    parts.push({ index: i + 1, type, guid: guid(e.subarray(16, 32)), firstLba: e.readBigUInt64LE(32), lastLba: e.readBigUInt64LE(40), name });
  }
  return parts;
}

/** A GUID as GPT stores it: the first three fields little-endian, the last two as bytes. */
function guid(b: Buffer): string {
  const h = (s: Buffer) => s.toString('hex');
  const le = (s: Buffer) => h(Buffer.from(s).reverse());
  return `${le(b.subarray(0, 4))}-${le(b.subarray(4, 6))}-${le(b.subarray(6, 8))}-${h(b.subarray(8, 10))}-${h(b.subarray(10, 16))}`;
}

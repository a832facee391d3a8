/**
 * The boot variables in a machine's OVMF variable file, read back from the file as the firmware
 * left it (the harness decides what the next power-on boots from what the firmware would read, not
 * from what a test expects): the authenticated variable store of EDK II's VariableFormat.h, after
 * the firmware volume header. Each variable: StartId 0x55AA, State, Attributes, MonotonicCount,
 * TimeStamp, PubKeyIndex, NameSize, DataSize, VendorGuid (60 bytes), then its UTF-16 name and data,
 * each record aligned to 4 bytes. Only records in the added state count (a rewrite adds a new
 * record and marks the old one deleted).
 */
import { readFileSync } from 'node:fs';

const START_ID = 0x55aa;
const HEADER = 60;
/** VAR_ADDED, and VAR_ADDED while its replacement is being written (VAR_IN_DELETED_TRANSITION). */
const LIVE = new Set([0x3f, 0x3e]);
/** EFI_GLOBAL_VARIABLE, where Boot####, BootOrder and BootNext live. */
const GLOBAL = '8be4df61-93ca-11d2-aa0d-00e098032b8c';

const guid = (b: Buffer): string => {
  const h = b.toString('hex');
  const le = (s: string) => s.match(/../g)!.reverse().join('');
  return `${le(h.slice(0, 8))}-${le(h.slice(8, 12))}-${le(h.slice(12, 16))}-${h.slice(16, 20)}-${h.slice(20)}`;
};

/** Every live EFI global variable: name → data. */
function globalVariables(varsFile: string): Map<string, Buffer> {
  const fv = readFileSync(varsFile);
  const out = new Map<string, Buffer>();
  // The store's header follows the firmware volume's (its length at offset 48); its variables follow the store header (28 bytes).
  const start = fv.readUInt16LE(48) + 28;
  for (let off = start; off + HEADER <= fv.length; ) {
    if (fv.readUInt16LE(off) !== START_ID) break;
    const state = fv[off + 2]!;
    const nameSize = fv.readUInt32LE(off + 36);
    const dataSize = fv.readUInt32LE(off + 40);
    const vendor = guid(fv.subarray(off + 44, off + 60));
    const name = fv
      .subarray(off + HEADER, off + HEADER + nameSize)
      .toString('utf16le')
      .replace(/\0+$/, '');
    const data = fv.subarray(off + HEADER + nameSize, off + HEADER + nameSize + dataSize);
    if (LIVE.has(state) && vendor === GLOBAL) out.set(name, Buffer.from(data));
    off = (off + HEADER + nameSize + dataSize + 3) & ~3;
  }
  return out;
}

export interface BootEntry {
  description: string;
  /** Whether its device path starts at a disk partition (a media HD node), not a network or firmware app. */
  partition: boolean;
}

export interface BootVariables {
  bootNext: number | null;
  bootOrder: number[];
  entries: Map<number, BootEntry>;
}

export function bootVariables(varsFile: string): BootVariables {
  const vars = globalVariables(varsFile);
  const next = vars.get('BootNext');
  const order = vars.get('BootOrder');
  const entries = new Map<number, BootEntry>();
  for (const [name, data] of vars) {
    const m = /^Boot([0-9A-F]{4})$/.exec(name);
    if (!m) continue;
    // EFI_LOAD_OPTION: Attributes (4), FilePathListLength (2), the description (NUL-terminated
    // UTF-16), then the device path, whose first node is media (4) / hard drive (1) for a partition.
    const description = data.subarray(6).toString('utf16le').split('\0')[0]!;
    const path = 6 + (description.length + 1) * 2;
    entries.set(parseInt(m[1]!, 16), { description, partition: data[path] === 4 && data[path + 1] === 1 });
  }
  return {
    bootNext: next && next.length >= 2 ? next.readUInt16LE(0) : null,
    bootOrder: order ? Array.from({ length: order.length >> 1 }, (_, i) => order.readUInt16LE(i * 2)) : [],
    entries,
  };
}

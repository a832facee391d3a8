import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { IMAGE_FAILURES } from '../lines/image.js';

/** Writes and reads go in runs of this size, one in flight while the next is gathered and hashed. */
const RUN_BYTES = 8 << 20;
/** O_DIRECT transfers: lengths and offsets in whole 4 KiB blocks (any disk's logical block divides it). */
const ALIGN = 4096;

export interface Written {
  bytes: number;
  /** sha256 of the bytes written, when asked for (a raw image's is the download's). */
  sha256: string | null;
}

/**
 * Two page-aligned buffers of one run each, as O_DIRECT needs them: Node has no aligned allocation,
 * but WebAssembly memory is mapped by whole pages.
 */
function alignedPair(): [Buffer, Buffer] {
  const pages = (2 * RUN_BYTES) / 65536;
  const all = Buffer.from(new wasm.Memory({ initial: pages, maximum: pages }).buffer);
  return [all.subarray(0, RUN_BYTES), all.subarray(RUN_BYTES)];
}

/** The one WebAssembly API used, typed here: the project's TypeScript libs (ES2022, Node) declare none. */
const wasm = (globalThis as unknown as { WebAssembly: { Memory: new (size: { initial: number; maximum: number }) => { buffer: ArrayBuffer } } }).WebAssembly;

const roundUp = (n: number) => Math.ceil(n / ALIGN) * ALIGN;

/**
 * Writes `data` to the start of the disk at `path` with O_DIRECT (at the device's speed, and
 * without filling HookOS's RAM with page cache) and flushes the device's cache (fsync). A last
 * partial block is padded with zeros. It refuses to write past `limit` (the disk's size).
 */
export async function writeToDisk(path: string, data: AsyncIterable<Buffer>, limit: number, opts: { hash: boolean }): Promise<Written> {
  const hash = opts.hash ? createHash('sha256') : null;
  const fh = await open(path, constants.O_RDWR | constants.O_DIRECT);
  const bufs = alignedPair();
  let cur = 0;
  let fill = 0;
  let at = 0;
  let inFlight: Promise<void> = Promise.resolve();
  const send = async () => {
    const buf = bufs[cur]!;
    const padded = roundUp(fill);
    if (at + padded > limit) throw new Error(IMAGE_FAILURES.pastDisk(path, String(limit)));
    buf.fill(0, fill, padded);
    hash?.update(buf.subarray(0, fill));
    await inFlight;
    inFlight = writeAll(fh, buf.subarray(0, padded), at);
    // Its failure surfaces at the next await; until then it must not count as unhandled.
    inFlight.catch(() => undefined);
    at += fill;
    cur ^= 1;
    fill = 0;
  };
  try {
    for await (const chunk of data) {
      for (let off = 0; off < chunk.length; ) {
        const n = chunk.copy(bufs[cur]!, fill, off, Math.min(chunk.length, off + RUN_BYTES - fill));
        fill += n;
        off += n;
        if (fill === RUN_BYTES) await send();
      }
    }
    if (fill > 0) await send();
    await inFlight;
    await fh.sync();
    return { bytes: at, sha256: hash?.digest('hex') ?? null };
  } finally {
    await inFlight.catch(() => undefined);
    await fh.close();
  }
}

/** The sha256 of the first `bytes` of the disk, read back from the device itself (O_DIRECT, no cache). */
export async function hashFromDisk(path: string, bytes: number): Promise<string> {
  const hash = createHash('sha256');
  const fh = await open(path, constants.O_RDONLY | constants.O_DIRECT);
  const bufs = alignedPair();
  const read = async (buf: Buffer, at: number) => {
    const want = Math.min(RUN_BYTES, bytes - at);
    const len = roundUp(want);
    for (let got = 0; got < len; ) {
      const { bytesRead } = await fh.read(buf, got, len - got, at + got);
      if (bytesRead === 0) throw new Error(IMAGE_FAILURES.endedEarly(path, String(at + got), String(bytes)));
      got += bytesRead;
    }
    return buf.subarray(0, want);
  };
  try {
    let at = 0;
    let next = bytes > 0 ? read(bufs[0], 0) : null;
    for (let i = 0; next; i ^= 1) {
      const got = await next;
      at += got.length;
      next = at < bytes ? read(bufs[i ^ 1]!, at) : null;
      next?.catch(() => undefined);
      hash.update(got);
    }
    return hash.digest('hex');
  } finally {
    await fh.close();
  }
}

/** Flushes what tools wrote through the disk's page cache (mtools, debugfs) to the device. */
export async function flushDisk(path: string): Promise<void> {
  const fh = await open(path, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

async function writeAll(fh: FileHandle, buf: Buffer, at: number): Promise<void> {
  for (let done = 0; done < buf.length; ) {
    const { bytesWritten } = await fh.write(buf, done, buf.length - done, at + done);
    if (bytesWritten === 0) throw new Error(IMAGE_FAILURES.noByteWritten(String(at + done)));
    done += bytesWritten;
  }
}

import { spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { IMAGE_FAILURES } from '../lines/image.js';
import { WHY } from '../lines/shared.js';
import type { ImageFormat } from './format.js';

/**
 * The image's bytes as they go on the disk, streamed: gzip in process, zstd and xz through their
 * tools (Node 20 has neither), raw as downloaded. A decompressor that fails ends the stream with
 * its error, so a truncated image is never taken for a short one.
 */
export async function* decompressed(format: ImageFormat, chunks: readonly Buffer[]): AsyncGenerator<Buffer> {
  if (format === 'raw') {
    yield* chunks;
    return;
  }
  if (format === 'gzip') {
    const gunzip = createGunzip();
    const fed = pipeline(Readable.from(chunks), gunzip);
    // A writer that stops early (the disk is full) ends the gunzip and so this pipeline: not an error.
    fed.catch(() => undefined);
    for await (const out of gunzip) yield out as Buffer;
    await fed;
    return;
  }
  const child = spawn(format, ['-d', '-c'], { stdio: ['pipe', 'pipe', 'pipe'] });
  const stderr: Buffer[] = [];
  child.stderr.on('data', (b: Buffer) => stderr.push(b));
  const exited = new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? 1));
  });
  // A decompressor that stops reading early closes its stdin; its exit code says why. A writer that
  // stops early closes its stdout, and the tool ends on the broken pipe.
  const fed = pipeline(Readable.from(chunks), child.stdin).catch(() => undefined);
  for await (const out of child.stdout) yield out as Buffer;
  await fed;
  const code = await exited;
  if (code !== 0) throw new Error(IMAGE_FAILURES.unpackFailed(format, Buffer.concat(stderr).toString('utf8').trim() || WHY.exitCode(String(code))));
}

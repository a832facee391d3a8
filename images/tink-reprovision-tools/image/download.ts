import { createHash } from 'node:crypto';
import { request, requestFailure } from '../lib/http.js';
import { Refusal } from '../lib/refusal.js';
import { mib } from './ram.js';

export interface Downloaded {
  chunks: Buffer[];
  size: number;
  sha256: string;
}

/** A progress line at every tenth of a known length, else every 256 MiB. */
const UNKNOWN_STEP = 256 << 20;

/**
 * The whole body of `url` in RAM (at most `cap` bytes), hashed as it arrives: nothing reaches a
 * disk before its checksum is known. `what` names it in the lines ("the image <url>"); a failure
 * is a refusal that ends "nothing written".
 */
export async function download(url: string, what: string, cap: number, say: (text: string) => void): Promise<Downloaded> {
  const refuse = (why: string) => new Refusal(`${what} cannot be fetched (${why}); nothing written`);
  let res;
  try {
    res = await request(url);
  } catch (err) {
    throw refuse(requestFailure(err));
  }
  const status = res.statusCode ?? 0;
  if (status < 200 || status >= 300) {
    res.destroy();
    throw refuse(`HTTP ${status}`);
  }
  const total = Number(res.headers['content-length']) || null;
  const tooBig = () => new Refusal(`${what} is larger than the ${mib(cap)} MiB of RAM it may use; nothing written`);
  if (total !== null && total > cap) {
    res.destroy();
    throw tooBig();
  }
  const step = total ? Math.ceil(total / 10) : UNKNOWN_STEP;
  const hash = createHash('sha256');
  const chunks: Buffer[] = [];
  let size = 0;
  let report = step;
  try {
    for await (const chunk of res as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > cap) throw tooBig();
      hash.update(chunk);
      chunks.push(chunk);
      if (size >= report) {
        say(`downloaded ${mib(size)}${total ? ` of ${mib(total)}` : ''} MiB`);
        while (report <= size) report += step;
      }
    }
  } catch (err) {
    throw err instanceof Refusal ? err : refuse(requestFailure(err));
  }
  // A connection that closed early ends the body short of its announced length.
  if (total !== null && size !== total) throw refuse(`the connection closed after ${size} of ${total} bytes`);
  return { chunks, size, sha256: hash.digest('hex') };
}

import { createHash } from 'node:crypto';
import { request, requestFailure } from '../lib/http.js';
import { Refusal } from '../lib/refusal.js';
import { IMAGE_LINES } from '../lines/image.js';
import { WHY } from '../lines/shared.js';
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
  const refuse = (why: string) => new Refusal(IMAGE_LINES.cannotFetch(what, why));
  let res;
  try {
    res = await request(url);
  } catch (err) {
    throw refuse(requestFailure(err));
  }
  const status = res.statusCode ?? 0;
  if (status < 200 || status >= 300) {
    res.destroy();
    throw refuse(WHY.http(String(status)));
  }
  const total = Number(res.headers['content-length']) || null;
  const tooBig = () => new Refusal(IMAGE_LINES.tooBigForRam(what, mib(cap)));
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
        say(total ? IMAGE_LINES.progress(mib(size), mib(total)) : IMAGE_LINES.progressUnknown(mib(size)));
        while (report <= size) report += step;
      }
    }
  } catch (err) {
    throw err instanceof Refusal ? err : refuse(requestFailure(err));
  }
  // A connection that closed early ends the body short of its announced length.
  if (total !== null && size !== total) throw refuse(WHY.closedEarly(String(size), String(total)));
  return { chunks, size, sha256: hash.digest('hex') };
}

/**
 * Whether an event's data is what its digests measured. For most PCR 7 events (variables,
 * separators, actions) the spec makes the digest the hash of the event data, so this is how a
 * reader earns the right to trust that data; EventType itself is covered by nothing.
 */
import { createHash } from 'node:crypto';
import { bytesEqual } from '../bytes/hex.js';
import type { EventLog } from './log.js';

/** `match`: every digest fleet can compute equals H(data); `unchecked`: it can compute none. */
export type DigestCheck = 'match' | 'mismatch' | 'unchecked';

export function checkDataDigests(log: EventLog, i: number): DigestCheck {
  const data = log.dataOf(i);
  let checked = false;
  for (let k = 0; k < log.banks.length; k++) {
    const algorithm = log.banks[k]!.algorithm;
    const digest = log.digestOf(i, k);
    if (!algorithm || !digest) continue;
    if (!bytesEqual(createHash(algorithm.nodeName).update(data).digest(), digest)) return 'mismatch';
    checked = true;
  }
  return checked ? 'match' : 'unchecked';
}

import { createHash, createHmac } from 'node:crypto';
import { FleetError } from '../errors.js';
import { HASHES } from './constants.js';

function hashName(alg: number): string {
  const h = HASHES[alg];
  if (!h) throw new FleetError('tpm-unsupported', `hash algorithm 0x${alg.toString(16)} is not supported`);
  return h.node;
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

/** A KDF label: the ASCII string with its terminating zero (Part 1, 11.4.10.1). */
function label(s: string): Buffer {
  return Buffer.from(`${s}\0`, 'latin1');
}

/** Both KDFs run a 32-bit counter from 1 and concatenate blocks until `bits` are made. */
function counterMode(bits: number, block: (counter: Buffer) => Buffer): Buffer {
  const bytes = Math.ceil(bits / 8);
  const parts: Buffer[] = [];
  for (let i = 1, have = 0; have < bytes; i++) {
    const d = block(u32(i));
    parts.push(d);
    have += d.length;
  }
  return Buffer.concat(parts).subarray(0, bytes);
}

/** KDFa (SP 800-108 counter mode with HMAC), Part 1 11.4.10.2. */
export function kdfa(alg: number, key: Uint8Array, use: string, contextU: Uint8Array, contextV: Uint8Array, bits: number): Buffer {
  const name = hashName(alg);
  return counterMode(bits, (i) => createHmac(name, key).update(i).update(label(use)).update(contextU).update(contextV).update(u32(bits)).digest());
}

/** KDFe (SP 800-56A concatenation KDF), Part 1 11.4.10.3: Z is the shared point's x coordinate. */
export function kdfe(alg: number, z: Uint8Array, use: string, partyU: Uint8Array, partyV: Uint8Array, bits: number): Buffer {
  const name = hashName(alg);
  return counterMode(bits, (i) => createHash(name).update(i).update(z).update(label(use)).update(partyU).update(partyV).digest());
}

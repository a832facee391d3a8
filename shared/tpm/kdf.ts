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

/** KDFa (SP 800-108 counter mode with HMAC), Part 1 11.4.10.2. */
export function kdfa(alg: number, key: Uint8Array, use: string, contextU: Uint8Array, contextV: Uint8Array, bits: number): Buffer {
  const name = hashName(alg);
  const bytes = Math.ceil(bits / 8);
  const parts: Buffer[] = [];
  let have = 0;
  for (let i = 1; have < bytes; i++) {
    const d = createHmac(name, key).update(u32(i)).update(label(use)).update(contextU).update(contextV).update(u32(bits)).digest();
    parts.push(d);
    have += d.length;
  }
  return Buffer.concat(parts).subarray(0, bytes);
}

/** KDFe (SP 800-56A concatenation KDF), Part 1 11.4.10.3: Z is the shared point's x coordinate. */
export function kdfe(alg: number, z: Uint8Array, use: string, partyU: Uint8Array, partyV: Uint8Array, bits: number): Buffer {
  const name = hashName(alg);
  const bytes = Math.ceil(bits / 8);
  const parts: Buffer[] = [];
  let have = 0;
  for (let i = 1; have < bytes; i++) {
    const d = createHash(name).update(u32(i)).update(z).update(label(use)).update(partyU).update(partyV).digest();
    parts.push(d);
    have += d.length;
  }
  return Buffer.concat(parts).subarray(0, bytes);
}

/**
 * The two EV_NO_ACTION payloads that change how a log is read: the Spec ID event (its header, naming
 * the digest algorithms of every later event) and the StartupLocality event (PCR 0's initial value).
 */
import { ByteReader } from '../bytes/reader.js';
import { HASH_ALGORITHMS } from './types.js';

export const SPEC_ID_EVENT03 = 'Spec ID Event03\0';
export const STARTUP_LOCALITY = 'StartupLocality\0';

/** No TPM hashes with more than a handful of banks; a larger count is a lie about the header. */
const MAX_ALGORITHMS = 16;
/** SHA-512 is the largest digest a TPM 2.0 bank uses. */
const MAX_DIGEST_SIZE = 64;

export interface SpecIdAlgorithm {
  readonly id: number;
  readonly size: number;
}

/** TCG_EfiSpecIDEvent ("Spec ID Event03"), the payload of a crypto-agile log's first event. */
export interface SpecIdEvent {
  readonly signature: string;
  readonly platformClass: number;
  readonly specVersionMinor: number;
  readonly specVersionMajor: number;
  readonly specErrata: number;
  readonly uintnSize: number;
  readonly algorithms: readonly SpecIdAlgorithm[];
  readonly vendorInfo: Uint8Array;
}

/** True when `data` starts with the ASCII `signature` (which includes its NUL). */
export function hasSignature(data: Uint8Array, signature: string): boolean {
  if (data.length < signature.length) return false;
  for (let i = 0; i < signature.length; i++) if (data[i] !== signature.charCodeAt(i)) return false;
  return true;
}

/**
 * Parses a Spec ID Event03 payload; raises `ParseError` (`eventlog-malformed`, offsets relative to
 * the payload) on anything malformed.
 */
export function parseSpecIdEvent(data: Uint8Array): SpecIdEvent {
  const r = new ByteReader(data, 'eventlog-malformed', 'Spec ID event');
  if (!hasSignature(data, SPEC_ID_EVENT03)) r.fail('signature is not "Spec ID Event03"');
  r.offset = SPEC_ID_EVENT03.length;
  const platformClass = r.u32le('platformClass');
  const specVersionMinor = r.u8('specVersionMinor');
  const specVersionMajor = r.u8('specVersionMajor');
  const specErrata = r.u8('specErrata');
  const uintnSize = r.u8('uintnSize');
  const count = r.u32le('numberOfAlgorithms');
  if (count === 0 || count > MAX_ALGORITHMS) r.fail(`numberOfAlgorithms ${count} is not within 1..${MAX_ALGORITHMS}`);
  const algorithms: SpecIdAlgorithm[] = [];
  for (let i = 0; i < count; i++) {
    const at = r.offset;
    const id = r.u16le('algorithmId');
    const size = r.u16le('digestSize');
    if (algorithms.some((a) => a.id === id)) r.fail(`algorithm 0x${id.toString(16)} is declared twice`, at);
    const known = HASH_ALGORITHMS.get(id);
    if (known ? size !== known.size : size === 0 || size > MAX_DIGEST_SIZE) {
      r.fail(`algorithm 0x${id.toString(16)} declares digest size ${size}`, at);
    }
    algorithms.push({ id, size });
  }
  const vendorInfo = r.bytes(r.u8('vendorInfoSize'), 'vendorInfo');
  r.end('Spec ID event');
  return { signature: SPEC_ID_EVENT03.slice(0, -1), platformClass, specVersionMinor, specVersionMajor, specErrata, uintnSize, algorithms, vendorInfo };
}

/** The locality of a StartupLocality payload, or `null` when `data` is not one. */
export function startupLocalityOf(data: Uint8Array): number | null {
  return data.length === STARTUP_LOCALITY.length + 1 && hasSignature(data, STARTUP_LOCALITY) ? data[STARTUP_LOCALITY.length]! : null;
}

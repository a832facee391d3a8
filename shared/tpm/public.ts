import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { ByteReader } from '../bytes/reader.js';
import { ByteWriter } from '../bytes/writer.js';
import { FleetError } from '../errors.js';
import { HASHES, TPM_ALG, TPM_ECC } from './constants.js';

/** TPMT_SYM_DEF_OBJECT; `null` is TPM_ALG_NULL. */
export type SymDef = { alg: number; keyBits: number; mode: number } | null;

/** A TPMT_*_SCHEME or TPMT_KDF_SCHEME; `scheme` TPM_ALG_NULL carries no details. */
export interface Scheme {
  scheme: number;
  hashAlg?: number;
  /** ECDAA only. */
  count?: number;
}

interface PublicCommon {
  nameAlg: number;
  attributes: number;
  authPolicy: Uint8Array;
  symmetric: SymDef;
  scheme: Scheme;
}

export interface RsaPublic extends PublicCommon {
  type: 'rsa';
  keyBits: number;
  /** 0 means the default 65537. */
  exponent: number;
  /** The modulus (empty in a template). */
  unique: Uint8Array;
}

export interface EccPublic extends PublicCommon {
  type: 'ecc';
  curve: number;
  kdf: Scheme;
  x: Uint8Array;
  y: Uint8Array;
}

/** TPMT_PUBLIC for the two asymmetric key types fleet uses. */
export type TpmtPublic = RsaPublic | EccPublic;

const CODE = 'tpm-malformed';

function writeSym(w: ByteWriter, s: SymDef): void {
  if (s === null) w.u16(TPM_ALG.NULL);
  else w.u16(s.alg).u16(s.keyBits).u16(s.mode);
}

function readSym(r: ByteReader): SymDef {
  const alg = r.u16('symmetric.algorithm');
  if (alg === TPM_ALG.NULL) return null;
  return { alg, keyBits: r.u16('symmetric.keyBits'), mode: r.u16('symmetric.mode') };
}

function writeScheme(w: ByteWriter, s: Scheme): void {
  w.u16(s.scheme);
  if (s.scheme === TPM_ALG.NULL) return;
  w.u16(s.hashAlg ?? TPM_ALG.SHA256);
  if (s.scheme === TPM_ALG.ECDAA) w.u16(s.count ?? 0);
}

function readScheme(r: ByteReader, field: string): Scheme {
  const scheme = r.u16(`${field}.scheme`);
  if (scheme === TPM_ALG.NULL) return { scheme };
  const s: Scheme = { scheme, hashAlg: r.u16(`${field}.hashAlg`) };
  if (scheme === TPM_ALG.ECDAA) s.count = r.u16(`${field}.count`);
  return s;
}

export function writePublic(w: ByteWriter, p: TpmtPublic): ByteWriter {
  w.u16(p.type === 'rsa' ? TPM_ALG.RSA : TPM_ALG.ECC)
    .u16(p.nameAlg)
    .u32(p.attributes)
    .tpm2b(p.authPolicy);
  writeSym(w, p.symmetric);
  writeScheme(w, p.scheme);
  if (p.type === 'rsa') {
    w.u16(p.keyBits).u32(p.exponent).tpm2b(p.unique);
  } else {
    w.u16(p.curve);
    writeScheme(w, p.kdf);
    w.tpm2b(p.x).tpm2b(p.y);
  }
  return w;
}

/** The TPMT_PUBLIC bytes (no size prefix). */
export function marshalPublic(p: TpmtPublic): Uint8Array {
  return writePublic(new ByteWriter(512), p).finish();
}

/** Reads a TPMT_PUBLIC from `r`. Only RSA and ECC keys are accepted. */
function readPublic(r: ByteReader): TpmtPublic {
  const type = r.u16('public.type');
  const nameAlg = r.u16('public.nameAlg');
  const attributes = r.u32('public.objectAttributes');
  const authPolicy = r.tpm2b('public.authPolicy');
  if (type !== TPM_ALG.RSA && type !== TPM_ALG.ECC) r.fail(`public key type 0x${type.toString(16)} is neither RSA nor ECC`);
  const symmetric = readSym(r);
  const scheme = readScheme(r, 'public.scheme');
  if (type === TPM_ALG.RSA) {
    const keyBits = r.u16('rsa.keyBits');
    const exponent = r.u32('rsa.exponent');
    const unique = r.tpm2b('rsa.unique');
    return { type: 'rsa', nameAlg, attributes, authPolicy, symmetric, scheme, keyBits, exponent, unique };
  }
  const curve = r.u16('ecc.curveID');
  const kdf = readScheme(r, 'ecc.kdf');
  const x = r.tpm2b('ecc.x');
  const y = r.tpm2b('ecc.y');
  return { type: 'ecc', nameAlg, attributes, authPolicy, symmetric, scheme, curve, kdf, x, y };
}

/** Parses a complete TPMT_PUBLIC (no size prefix); trailing bytes are refused. */
export function parsePublic(bytes: Uint8Array): TpmtPublic {
  const r = new ByteReader(bytes, CODE, 'TPMT_PUBLIC');
  const p = readPublic(r);
  r.end('TPMT_PUBLIC');
  return p;
}

/** Reads a TPM2B_PUBLIC and returns both the parsed key and its exact TPMT_PUBLIC bytes. */
export function readPublic2b(r: ByteReader): { pub: TpmtPublic; area: Uint8Array } {
  const area = r.tpm2b('TPM2B_PUBLIC');
  return { pub: parsePublic(area), area };
}

/** The object's Name: nameAlg ‖ H_nameAlg(TPMT_PUBLIC). */
export function objectName(area: Uint8Array): Uint8Array {
  const nameAlg = (area[2]! << 8) | area[3]!;
  const h = HASHES[nameAlg];
  if (!h || area.length < 4) throw new FleetError('tpm-malformed', `object nameAlg 0x${nameAlg.toString(16)} is not supported`);
  const out = new Uint8Array(2 + h.size);
  out[0] = area[2]!;
  out[1] = area[3]!;
  out.set(createHash(h.node).update(area).digest(), 2);
  return out;
}

const CURVES: Record<number, { jwk: string; size: number }> = {
  [TPM_ECC.NIST_P256]: { jwk: 'P-256', size: 32 },
  [TPM_ECC.NIST_P384]: { jwk: 'P-384', size: 48 },
};

export function curveSize(curve: number): number {
  const c = CURVES[curve];
  if (!c) throw new FleetError('tpm-unsupported', `ECC curve 0x${curve.toString(16)} is not supported`);
  return c.size;
}

function padLeft(b: Uint8Array, size: number): Uint8Array {
  if (b.length === size) return b;
  if (b.length > size) throw new FleetError('tpm-malformed', `ECC coordinate of ${b.length} bytes exceeds ${size}`);
  const out = new Uint8Array(size);
  out.set(b, size - b.length);
  return out;
}

const b64u = (b: Uint8Array) => Buffer.from(b).toString('base64url');

/**
 * The exponent a TPMT_PUBLIC's field means (0 is 65537, what TPMs make), when it is one RSA can
 * use: odd and at least 3 (1 encrypts and signs nothing; an even one is no RSA key), and not
 * 0xffffffff, the all-ones value no TPM makes.
 */
function rsaExponent(field: number): number {
  const e = field === 0 ? 65537 : field;
  if (e < 3 || e % 2 === 0 || e === 0xffffffff) throw new Error(`exponent ${e} is not an odd value from 3 below 0xffffffff (TPMs use 65537)`);
  return e;
}

/**
 * The public key as a node:crypto KeyObject. Import validates it: an RSA modulus of the wrong size
 * or an ECC point off its curve is refused here, before anything encrypts to it.
 */
export function publicKeyObject(p: TpmtPublic): KeyObject {
  try {
    if (p.type === 'rsa') {
      if (p.unique.length * 8 !== p.keyBits) throw new Error(`modulus is ${p.unique.length * 8} bits, keyBits says ${p.keyBits}`);
      const e = rsaExponent(p.exponent);
      const eb = Buffer.alloc(4);
      eb.writeUInt32BE(e);
      let i = 0;
      while (i < 3 && eb[i] === 0) i++;
      return createPublicKey({ key: { kty: 'RSA', n: b64u(p.unique), e: b64u(eb.subarray(i)) }, format: 'jwk' });
    }
    const c = CURVES[p.curve];
    if (!c) throw new Error(`ECC curve 0x${p.curve.toString(16)} is not supported`);
    return createPublicKey({ key: { kty: 'EC', crv: c.jwk, x: b64u(padLeft(p.x, c.size)), y: b64u(padLeft(p.y, c.size)) }, format: 'jwk' });
  } catch (err) {
    throw new FleetError('tpm-bad-key', `the TPM's ${p.type.toUpperCase()} public key is not a valid key: ${(err as Error).message}`);
  }
}

/** DER SubjectPublicKeyInfo of the key. */
export function spkiDer(p: TpmtPublic): Uint8Array {
  return new Uint8Array(publicKeyObject(p).export({ type: 'spki', format: 'der' }));
}

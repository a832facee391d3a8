import { ByteReader } from '../bytes/reader.js';
import { ByteWriter } from '../bytes/writer.js';
import { TPM_RH, TPM_ST } from './constants.js';

/** How a handle that needs authorization is authorized. */
export type Auth =
  /** TPM_RS_PW with the object's auth value (empty for every key fleet makes). */
  | { kind: 'password'; value?: Uint8Array }
  /** A policy session whose policy the object's authPolicy accepts; no HMAC (no PolicyAuthValue). */
  | { kind: 'policy'; handle: number; nonceCaller: Uint8Array };

export interface Command {
  /** The command's name without TPM2_, for errors. */
  name: string;
  cc: number;
  /** Handles in the handle area; the first `auths.length` of them are authorized. */
  handles?: readonly number[];
  auths?: readonly Auth[];
  /** The marshalled parameter area. */
  params?: Uint8Array;
  /** How many handles the response carries (e.g. 1 for CreatePrimary). */
  responseHandles?: number;
}

export const HEADER_SIZE = 10;

export function encodeCommand(c: Command): Uint8Array {
  const auths = c.auths ?? [];
  const w = new ByteWriter(64 + (c.params?.length ?? 0));
  w.u16(auths.length > 0 ? TPM_ST.SESSIONS : TPM_ST.NO_SESSIONS)
    .u32(0)
    .u32(c.cc);
  for (const h of c.handles ?? []) w.u32(h);
  if (auths.length > 0) {
    const area = new ByteWriter(64);
    for (const a of auths) {
      if (a.kind === 'password') {
        area
          .u32(TPM_RH.PW)
          .tpm2b(new Uint8Array(0))
          .u8(0)
          .tpm2b(a.value ?? new Uint8Array(0));
      } else {
        // A policy session is flushed after the command; not continued on purpose.
        area.u32(a.handle).tpm2b(a.nonceCaller).u8(0).tpm2b(new Uint8Array(0));
      }
    }
    const bytes = area.finish();
    w.u32(bytes.length).bytes(bytes);
  }
  if (c.params) w.bytes(c.params);
  return w.patchU32(2, w.length).finish();
}

export interface Response {
  rc: number;
  handles: number[];
  /** A reader over exactly the response's parameter area. */
  params: ByteReader;
}

/**
 * Parses a response to `c`. The size field must match the bytes received, and the parameter area
 * is bounded by parameterSize, so a short or lying response is a `tpm-malformed` error.
 */
export function decodeResponse(c: Command, bytes: Uint8Array): Response {
  const r = new ByteReader(bytes, 'tpm-malformed', `TPM2_${c.name} response`);
  const tag = r.u16('tag');
  const size = r.u32('responseSize');
  const rc = r.u32('responseCode');
  if (size !== bytes.length) r.fail(`declares ${size} bytes but ${bytes.length} arrived`, 2);
  if (rc !== 0) {
    r.end('error response');
    return { rc, handles: [], params: r };
  }
  const withSessions = (c.auths?.length ?? 0) > 0;
  const expectTag = withSessions ? TPM_ST.SESSIONS : TPM_ST.NO_SESSIONS;
  if (tag !== expectTag) r.fail(`tag 0x${tag.toString(16)}, expected 0x${expectTag.toString(16)}`, 0);
  const handles: number[] = [];
  for (let i = 0; i < (c.responseHandles ?? 0); i++) handles.push(r.u32('handle'));
  if (!withSessions) return { rc, handles, params: r.sub(r.remaining, 'parameters') };
  const params = r.sub(r.u32('parameterSize'), 'parameters');
  for (let i = 0; i < (c.auths?.length ?? 0); i++) {
    r.tpm2b('session nonce');
    r.u8('session attributes');
    r.tpm2b('session hmac');
  }
  r.end('authorization area');
  return { rc, handles, params };
}

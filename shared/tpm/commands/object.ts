import { ByteWriter } from '../../bytes/writer.js';
import type { Tpm } from '../client.js';
import type { Auth } from '../command.js';
import { TPM_CC } from '../constants.js';
import { readPublic2b, writePublic, type TpmtPublic } from '../public.js';

/** A key the TPM holds, with the exact public area it reported and its Name. */
export interface LoadedKey {
  handle: number;
  pub: TpmtPublic;
  /** The TPMT_PUBLIC bytes as the TPM returned them. */
  area: Uint8Array;
  name: Uint8Array;
}

/** TPM2B_SENSITIVE_CREATE with an empty auth value and no data, then the template, no outsideInfo, no creation PCRs. */
function createParams(template: TpmtPublic): Uint8Array {
  const pub = writePublic(new ByteWriter(512), template).finish();
  return new ByteWriter(pub.length + 16).u16(4).u16(0).u16(0).tpm2b(pub).u16(0).u32(0).finish();
}

/** TPM2_CreatePrimary under `hierarchy` (authorized by its empty password unless `auth` says otherwise). */
export async function createPrimary(tpm: Tpm, hierarchy: number, template: TpmtPublic, auth: Auth = { kind: 'password' }): Promise<LoadedKey> {
  const res = await tpm.run({
    name: 'CreatePrimary',
    cc: TPM_CC.CreatePrimary,
    handles: [hierarchy],
    auths: [auth],
    params: createParams(template),
    responseHandles: 1,
  });
  const handle = res.handles[0]!;
  return flushingOnError(tpm, handle, () => {
    const r = res.params;
    const { pub, area } = readPublic2b(r);
    r.tpm2b('creationData');
    r.tpm2b('creationHash');
    r.u16('creationTicket.tag');
    r.u32('creationTicket.hierarchy');
    r.tpm2b('creationTicket.digest');
    const name = r.tpm2b('name');
    r.end('CreatePrimary parameters');
    return { handle, pub, area, name };
  });
}

/** Parses what came with a new handle; if that fails, the handle is flushed before the error goes on. */
async function flushingOnError<T>(tpm: Tpm, handle: number, parse: () => T): Promise<T> {
  try {
    return parse();
  } catch (err) {
    await flushContext(tpm, handle).catch(() => undefined);
    throw err;
  }
}

/** TPM2_Create: a new key under `parent`; returns the blobs to Load it. */
export async function create(
  tpm: Tpm,
  parent: number,
  parentAuth: Auth,
  template: TpmtPublic,
): Promise<{ privateBlob: Uint8Array; area: Uint8Array; pub: TpmtPublic }> {
  const r = (await tpm.run({ name: 'Create', cc: TPM_CC.Create, handles: [parent], auths: [parentAuth], params: createParams(template) })).params;
  const privateBlob = r.tpm2b('outPrivate');
  const { pub, area } = readPublic2b(r);
  return { privateBlob, area, pub };
}

/** TPM2_Load: loads a key made by Create under the same parent. */
export async function load(tpm: Tpm, parent: number, parentAuth: Auth, privateBlob: Uint8Array, area: Uint8Array, pub: TpmtPublic): Promise<LoadedKey> {
  const params = new ByteWriter(privateBlob.length + area.length + 8).tpm2b(privateBlob).tpm2b(area).finish();
  const res = await tpm.run({ name: 'Load', cc: TPM_CC.Load, handles: [parent], auths: [parentAuth], params, responseHandles: 1 });
  const handle = res.handles[0]!;
  return flushingOnError(tpm, handle, () => {
    const name = res.params.tpm2b('name');
    res.params.end('Load parameters');
    return { handle, pub, area, name };
  });
}

/** TPM2_ReadPublic: the public area and Name of a loaded or persistent object. */
export async function readPublicArea(tpm: Tpm, handle: number): Promise<LoadedKey> {
  const res = await tpm.run({ name: 'ReadPublic', cc: TPM_CC.ReadPublic, handles: [handle] });
  const r = res.params;
  const { pub, area } = readPublic2b(r);
  const name = r.tpm2b('name');
  r.tpm2b('qualifiedName');
  r.end('ReadPublic parameters');
  return { handle, pub, area, name };
}

/** TPM2_FlushContext: frees a transient object or a session. */
export async function flushContext(tpm: Tpm, handle: number): Promise<void> {
  await tpm.run({ name: 'FlushContext', cc: TPM_CC.FlushContext, params: new ByteWriter(4).u32(handle).finish() });
}

import { randomBytes } from 'node:crypto';
import { ByteWriter } from '../../bytes/writer.js';
import type { Tpm } from '../client.js';
import type { Auth } from '../command.js';
import { TPM_ALG, TPM_CC, TPM_RH, TPM_SE } from '../constants.js';
import { flushContext } from './object.js';

/**
 * A policy session that has run PolicySecret(TPM_RH_ENDORSEMENT): what the TCG EK templates'
 * authPolicy demands to use an EK. The TPM flushes it when a command consumes it; `dispose`
 * flushes it when none did (a failed command leaves it loaded).
 */
export interface EkSession {
  auth: Auth;
  dispose(): Promise<void>;
}

export async function startEkPolicySession(tpm: Tpm): Promise<EkSession> {
  const start = new ByteWriter(64)
    .tpm2b(randomBytes(16)) // nonceCaller
    .u16(0) // encryptedSalt: none
    .u8(TPM_SE.POLICY)
    .u16(TPM_ALG.NULL) // symmetric: none
    .u16(TPM_ALG.SHA256)
    .finish();
  const res = await tpm.run({
    name: 'StartAuthSession',
    cc: TPM_CC.StartAuthSession,
    handles: [TPM_RH.NULL, TPM_RH.NULL],
    params: start,
    responseHandles: 1,
  });
  const handle = res.handles[0]!;
  let disposed = false;
  const dispose = async () => {
    if (disposed) return;
    disposed = true;
    await flushContext(tpm, handle).catch(() => undefined); // already gone when a command consumed it
  };
  try {
    res.params.tpm2b('nonceTPM');
    const secret = new ByteWriter(16).u16(0).u16(0).u16(0).u32(0).finish(); // nonceTPM, cpHashA, policyRef, expiration
    await tpm.run({
      name: 'PolicySecret',
      cc: TPM_CC.PolicySecret,
      handles: [TPM_RH.ENDORSEMENT, handle],
      auths: [{ kind: 'password' }],
      params: secret,
    });
  } catch (err) {
    await dispose();
    throw err;
  }
  return { auth: { kind: 'policy', handle, nonceCaller: randomBytes(16) }, dispose };
}

/**
 * Runs `fn`, which must use the session for exactly one command, with a fresh EK policy session.
 * On success the TPM has flushed the session (it is not continued); on failure it is flushed here.
 */
export async function withEkSession<T>(tpm: Tpm, fn: (auth: Auth) => Promise<T>): Promise<T> {
  const s = await startEkPolicySession(tpm);
  try {
    return await fn(s.auth);
  } catch (err) {
    await s.dispose();
    throw err;
  }
}

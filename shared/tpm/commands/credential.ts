import { ByteWriter } from '../../bytes/writer.js';
import type { Tpm } from '../client.js';
import type { Auth } from '../command.js';
import { TPM_CC } from '../constants.js';

/**
 * TPM2_ActivateCredential: the TPM decrypts a credential made for `keyHandle` (an EK) and releases
 * it only if `activateHandle` (the AK) is loaded with exactly the Name the maker bound it to.
 */
export async function activateCredential(
  tpm: Tpm,
  activateHandle: number,
  keyHandle: number,
  ekAuth: Auth,
  credentialBlob: Uint8Array,
  secret: Uint8Array,
): Promise<Uint8Array> {
  const params = new ByteWriter(credentialBlob.length + secret.length + 8).tpm2b(credentialBlob).tpm2b(secret).finish();
  const r = (
    await tpm.run({
      name: 'ActivateCredential',
      cc: TPM_CC.ActivateCredential,
      handles: [activateHandle, keyHandle],
      auths: [{ kind: 'password' }, ekAuth],
      params,
    })
  ).params;
  const certInfo = r.tpm2b('certInfo');
  r.end('ActivateCredential parameters');
  return certInfo;
}

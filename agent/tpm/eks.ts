import { bytesEqual } from '../../shared/bytes/hex.js';
import type { Tpm } from '../../shared/tpm/client.js';
import { nvReadAll } from '../../shared/tpm/commands/nv.js';
import { createPrimary, flushContext, readPublicArea, type LoadedKey } from '../../shared/tpm/commands/object.js';
import { getProperty } from '../../shared/tpm/commands/capability.js';
import { EK_INDEX, TPM_PT, TPM_RH } from '../../shared/tpm/constants.js';
import { marshalPublic, parsePublic, type TpmtPublic } from '../../shared/tpm/public.js';
import { TpmError } from '../../shared/tpm/rc.js';
import { ekTemplateEcc, ekTemplateRsa, withEkNonce } from '../../shared/tpm/templates.js';
import type { EkKind } from '../../shared/wire/schemas.js';

/** An EK ready for ActivateCredential, with its certificate when the TPM holds one. */
export interface Ek extends LoadedKey {
  kind: EkKind;
  certificate: Uint8Array | null;
  /** True when we created it (and must flush it); false for a persistent EK. */
  transient: boolean;
}

const SLOTS = { rsa2048: EK_INDEX.rsa, eccp256: EK_INDEX.ecc } as const;
const DEFAULTS = { rsa2048: ekTemplateRsa, eccp256: ekTemplateEcc } as const;

/** Response codes that mean "this TPM cannot make this kind of key": the EK is absent, not broken. */
const UNSUPPORTED = new Set(['ASYMMETRIC', 'CURVE', 'KEY_SIZE', 'SCHEME', 'VALUE', 'TYPE', 'SYMMETRIC']);

/**
 * The template the TPM's maker used: the NV template index when present, else the TCG default,
 * with the NV EK nonce applied when present (EK Credential Profile 2.0, 2.2.1.5).
 */
async function ekTemplate(tpm: Tpm, kind: EkKind, nvChunk: number): Promise<TpmtPublic> {
  const slot = SLOTS[kind];
  const nvTemplate = await nvReadAll(tpm, slot.template, nvChunk);
  let t = nvTemplate ? parsePublic(nvTemplate) : DEFAULTS[kind]();
  const nonce = await nvReadAll(tpm, slot.nonce, nvChunk);
  if (nonce) t = withEkNonce(t, nonce);
  return t;
}

/** Same key parameters as the template, whatever the unique field holds. */
function matchesTemplate(p: TpmtPublic, t: TpmtPublic): boolean {
  const blank = (k: TpmtPublic): TpmtPublic => (k.type === 'rsa' ? { ...k, unique: new Uint8Array(0) } : { ...k, x: new Uint8Array(0), y: new Uint8Array(0) });
  return bytesEqual(marshalPublic(blank(p)), marshalPublic(blank(t)));
}

/** How much one NV_Read may ask for: the TPM's TPM_PT_NV_BUFFER_MAX (512 if it does not say). */
export async function nvChunkSize(tpm: Tpm): Promise<number> {
  return Math.max(64, Math.min((await getProperty(tpm, TPM_PT.NV_BUFFER_MAX)) ?? 512, 2048));
}

/**
 * Gets the EK of `kind`: the persistent one at 0x81010001/0x81010002 when its public matches the
 * template (a real TPM takes seconds to derive an RSA EK), else TPM2_CreatePrimary from the
 * template. Returns null when the TPM does not support the key type.
 */
export async function loadEk(tpm: Tpm, kind: EkKind, nvChunk: number): Promise<Ek | null> {
  const template = await ekTemplate(tpm, kind, nvChunk);
  const certificate = await nvReadAll(tpm, SLOTS[kind].cert, nvChunk);
  try {
    const persisted = await readPublicArea(tpm, SLOTS[kind].persistent);
    if (matchesTemplate(persisted.pub, template)) return { ...persisted, kind, certificate, transient: false };
  } catch (err) {
    if (!(err instanceof TpmError && err.is('HANDLE'))) throw err;
  }
  try {
    const key = await createPrimary(tpm, TPM_RH.ENDORSEMENT, template);
    return { ...key, kind, certificate, transient: true };
  } catch (err) {
    if (err instanceof TpmError && UNSUPPORTED.has(err.decoded.name)) return null;
    throw err;
  }
}

export async function releaseEk(tpm: Tpm, ek: Ek): Promise<void> {
  if (ek.transient) await flushContext(tpm, ek.handle);
}

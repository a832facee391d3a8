import { createHash } from 'node:crypto';
import { bytesEqual } from '../../shared/bytes/hex.js';
import { FleetError } from '../../shared/errors.js';
import type { Tpm } from '../../shared/tpm/client.js';
import { activateCredential } from '../../shared/tpm/commands/credential.js';
import { create, flushContext, load, type LoadedKey } from '../../shared/tpm/commands/object.js';
import { pcrRead } from '../../shared/tpm/commands/pcr.js';
import { quote, type RawQuote } from '../../shared/tpm/commands/quote.js';
import { withEkSession } from '../../shared/tpm/commands/session.js';
import { TPM_ALG } from '../../shared/tpm/constants.js';
import { parseQuoteAttest } from '../../shared/tpm/attest.js';
import { PCR_COUNT } from '../../shared/tpm/pcr-selection.js';
import { akTemplate, type AkKind } from '../../shared/tpm/templates.js';
import type { EkKind } from '../../shared/wire/schemas.js';
import { loadEk, nvChunkSize, releaseEk, type Ek } from './eks.js';

const ALL_PCRS = [...Array(PCR_COUNT).keys()];

/**
 * This boot's keys in the TPM: the EKs it has and a fresh AK under the first of them. Holds at
 * most three transient objects (two EKs and the AK), the least any TPM offers, and `close`
 * flushes all it created, also after a failure.
 */
export class AttestationKeys {
  private constructor(
    private readonly tpm: Tpm,
    readonly eks: Ek[],
    readonly ak: LoadedKey,
  ) {}

  static async open(tpm: Tpm, opts: { kinds?: readonly EkKind[]; akKind?: AkKind } = {}): Promise<AttestationKeys> {
    const eks: Ek[] = [];
    try {
      const nvChunk = await nvChunkSize(tpm);
      for (const kind of opts.kinds ?? (['rsa2048', 'eccp256'] as const)) {
        const ek = await loadEk(tpm, kind, nvChunk);
        if (ek) eks.push(ek);
      }
      const parent = eks[0];
      if (!parent) throw new FleetError('tpm-no-ek', 'the TPM has neither an RSA-2048 nor an ECC P-256 EK');
      const made = await withEkSession(tpm, (auth) => create(tpm, parent.handle, auth, akTemplate(opts.akKind ?? 'ecc')));
      const ak = await withEkSession(tpm, (auth) => load(tpm, parent.handle, auth, made.privateBlob, made.area, made.pub));
      return new AttestationKeys(tpm, eks, ak);
    } catch (err) {
      for (const ek of eks) await releaseEk(tpm, ek).catch(() => undefined);
      throw err;
    }
  }

  /** Activates one credential with the named EK; the TPM answers only if it holds both the EK and the AK. */
  activate(kind: EkKind, credentialBlob: Uint8Array, secret: Uint8Array): Promise<Uint8Array> {
    const ek = this.eks.find((e) => e.kind === kind);
    if (!ek) throw new FleetError('tpm-no-ek', `the verifier challenged a ${kind} EK this TPM did not offer`);
    return withEkSession(this.tpm, (auth) => activateCredential(this.tpm, this.ak.handle, ek.handle, auth, credentialBlob, secret));
  }

  /**
   * Reads the SHA-256 PCRs and quotes them. A PCR can change between the read and the quote (IMA
   * extends PCR 10 at any time): the quote's digest is checked against the values read, and both
   * are taken again when they differ.
   */
  async quote(qualifyingData: Uint8Array): Promise<{ quote: RawQuote; pcrs: Map<number, Uint8Array> }> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const pcrs = await pcrRead(this.tpm, TPM_ALG.SHA256, ALL_PCRS);
      const q = await quote(this.tpm, this.ak.handle, qualifyingData, [{ hashAlg: TPM_ALG.SHA256, pcrs: ALL_PCRS }]);
      const h = createHash('sha256');
      for (const i of ALL_PCRS) h.update(pcrs.get(i)!);
      if (bytesEqual(h.digest(), parseQuoteAttest(q.attest).pcrDigest)) return { quote: q, pcrs };
    }
    throw new FleetError('tpm-pcrs-moving', 'the PCRs kept changing between reading and quoting them');
  }

  async close(): Promise<void> {
    await flushContext(this.tpm, this.ak.handle).catch(() => undefined);
    for (const ek of this.eks) await releaseEk(this.tpm, ek).catch(() => undefined);
  }
}

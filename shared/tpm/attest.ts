import { ByteReader } from '../bytes/reader.js';
import { TPM_GENERATED_VALUE, TPM_ST } from './constants.js';
import { readPcrSelections, type PcrSelection } from './pcr-selection.js';

/** A TPMS_ATTEST of type TPM_ST_ATTEST_QUOTE. */
export interface QuoteAttest {
  qualifiedSigner: Uint8Array;
  extraData: Uint8Array;
  clock: bigint;
  resetCount: number;
  restartCount: number;
  safe: boolean;
  firmwareVersion: bigint;
  pcrSelect: PcrSelection[];
  pcrDigest: Uint8Array;
}

/**
 * Parses quote attestation bytes. The magic and type are checked here: only a structure the TPM
 * generated starts with TPM_GENERATED_VALUE, and a restricted key signs nothing else that does.
 */
export function parseQuoteAttest(bytes: Uint8Array): QuoteAttest {
  const r = new ByteReader(bytes, 'quote-malformed', 'quote TPMS_ATTEST');
  if (r.u32('magic') !== TPM_GENERATED_VALUE) r.fail('magic is not TPM_GENERATED_VALUE', 0);
  const type = r.u16('type');
  if (type !== TPM_ST.ATTEST_QUOTE) r.fail(`type 0x${type.toString(16)} is not a quote`, 4);
  const qualifiedSigner = r.tpm2b('qualifiedSigner');
  const extraData = r.tpm2b('extraData');
  const clock = r.u64('clock');
  const resetCount = r.u32('resetCount');
  const restartCount = r.u32('restartCount');
  const safe = r.u8('safe') === 1;
  const firmwareVersion = r.u64('firmwareVersion');
  const pcrSelect = readPcrSelections(r);
  const pcrDigest = r.tpm2b('pcrDigest');
  r.end('TPMS_ATTEST');
  return { qualifiedSigner, extraData, clock, resetCount, restartCount, safe, firmwareVersion, pcrSelect, pcrDigest };
}

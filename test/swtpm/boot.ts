import { parseEventLog } from '../../shared/eventlog/parse.js';
import { EV_NO_ACTION } from '../../shared/eventlog/types.js';
import type { Tpm } from '../../shared/tpm/client.js';
import { pcrExtend } from '../../shared/tpm/commands/pcr.js';
import { TPM_ALG } from '../../shared/tpm/constants.js';

/**
 * Plays firmware: extends every measured event of a recorded boot's event log into the TPM's
 * SHA-256 PCRs, so that the TPM's PCRs are what that boot would have left and the log replays to
 * them. swtpm starts at locality 0, so a log whose PCR 0 starts at locality 3 or 4 cannot be played.
 */
export async function simulateBoot(tpm: Tpm, eventLog: Uint8Array): Promise<void> {
  const log = parseEventLog(eventLog);
  if (log.startupLocality) throw new Error(`this log starts PCR 0 at locality ${log.startupLocality}; swtpm cannot`);
  const bank = log.bankIndex('sha256');
  if (bank < 0) throw new Error('this log has no SHA-256 bank');
  for (let i = 0; i < log.length; i++) {
    if (log.typeOf(i) === EV_NO_ACTION) continue;
    const digest = log.digestOf(i, bank);
    if (digest) await pcrExtend(tpm, log.pcrOf(i), [{ hashAlg: TPM_ALG.SHA256, digest }]);
  }
}

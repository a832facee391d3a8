/**
 * A TPM that loses power without TPM2_Shutdown, after a dictionary-attack-protected object was
 * used since its startup, counts that as an authorization failure at its next startup (TPM 2.0
 * Part 1, "Non-orderly shutdown"), and swtpm's default is three before lockout. HookOS is always
 * ended that way: Rufio's power cycle is a hard power-off, and the reboot action pulls the
 * kernel's sysrq trigger, which skips the driver's TPM2_Shutdown. So a machine whose agent uses a
 * DA-protected AK locks its TPM after a few runs; the AK is made with noDA, and every boot of
 * many, each ended by a power loss, attests.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AttestationKeys } from '../../agent/tpm/attestation-keys.js';
import { Tpm } from '../../shared/tpm/client.js';
import { getProperty } from '../../shared/tpm/commands/capability.js';
import { TPM_PT } from '../../shared/tpm/constants.js';
import { SocketTransport } from '../../shared/tpm/transport.js';
import { copyTpmState, goldenTpm } from '../swtpm/provision.js';
import { startSwtpm } from '../swtpm/swtpm.js';

let dir: string | undefined;
afterAll(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

/** One HookOS boot's use of the TPM, ended by a power loss: the agent's keys, a quote, no TPM2_Shutdown. */
async function bootAndLosePower(stateDir: string): Promise<{ failedTries: number | undefined }> {
  const swtpm = await startSwtpm(stateDir);
  const tpm = new Tpm(await SocketTransport.connect({ path: swtpm.socketPath }));
  try {
    const failedTries = await getProperty(tpm, TPM_PT.LOCKOUT_COUNTER);
    const keys = await AttestationKeys.open(tpm);
    try {
      await keys.quote(new Uint8Array(32));
    } finally {
      await keys.close();
    }
    return { failedTries };
  } finally {
    await tpm.close();
    await swtpm.stop();
  }
}

describe('power losses after an attestation', () => {
  it('six boots, each ended without TPM2_Shutdown, all quote; the lockout counter stays 0', async () => {
    dir = await mkdtemp(join(tmpdir(), 'fleet-tpm-power-'));
    const { stateDir } = await copyTpmState(await goldenTpm('a', { persistEks: true }), join(dir, 'tpm'));
    for (let boot = 1; boot <= 6; boot++) expect(await bootAndLosePower(stateDir), `boot ${boot}`).toEqual({ failedTries: 0 });
  }, 120_000);
});

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runAttestation } from '../../agent/attest/run.js';
import { Tpm } from '../../shared/tpm/client.js';
import { SocketTransport } from '../../shared/tpm/transport.js';
import { simulateBoot } from './boot.js';
import { copyTpmState, goldenTpm, type ProvisionedTpm } from './provision.js';
import { BOOT_LOG, rigBoot } from './rig.js';
import { type RunningSwtpm, startSwtpm } from './swtpm.js';

/** The rig's machine, booted: its own copy of TPM a, which has measured the recorded firmware log. */
export interface BootedMachine {
  provisioned: ProvisionedTpm;
  swtpm: RunningSwtpm;
  tpm: Tpm;
  /** The agent's one try against the verifier at `url`, claiming `serial`: its console lines. */
  attest(url: string, serial: string): Promise<string[]>;
  close(): Promise<void>;
}

/** Boots it in `dir`; `beforeBoot` may change the TPM's NV first, as its maker would. */
export async function bootMachine(dir: string, beforeBoot?: (swtpm: RunningSwtpm, provisioned: ProvisionedTpm) => Promise<void>): Promise<BootedMachine> {
  const provisioned = await copyTpmState(await goldenTpm('a'), join(dir, 'tpm'));
  const swtpm = await startSwtpm(provisioned.stateDir);
  await beforeBoot?.(swtpm, provisioned);
  const tpm = new Tpm(await SocketTransport.connect({ path: swtpm.socketPath }));
  const eventLog = new Uint8Array(await readFile(BOOT_LOG));
  await simulateBoot(tpm, eventLog);
  return {
    provisioned,
    swtpm,
    tpm,
    async attest(url, serial) {
      const lines: string[] = [];
      await runAttestation({
        tpm,
        client: { baseUrl: url },
        boot: rigBoot(serial, eventLog),
        installCodePath: join(dir, 'worker', 'fleet', 'install_code'),
        say: (l) => lines.push(l),
        tries: 1,
      });
      return lines;
    },
    async close() {
      await tpm.close();
      await swtpm.stop();
    },
  };
}

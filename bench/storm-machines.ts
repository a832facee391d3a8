/**
 * The boot storm's machines: each its own TPM (provisioned anew, so each has EKs of its own, as
 * the nodes file demands), its swtpm booted with a recorded firmware log, its own serial, MAC and
 * loopback address, and its TPM's transport timed (TpmClock).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { BootFacts } from '../agent/attest/attest-once.js';
import { ekHashOfCertificate } from '../shared/ek-cert/ek-certificate.js';
import { Tpm } from '../shared/tpm/client.js';
import { SocketTransport } from '../shared/tpm/transport.js';
import { simulateBoot } from '../test/swtpm/boot.js';
import { provisionTpm } from '../test/swtpm/provision.js';
import { BOOT_LOG } from '../test/swtpm/rig.js';
import { startSwtpm, type RunningSwtpm } from '../test/swtpm/swtpm.js';
import { TpmClock } from './tpm-clock.js';

export interface StormMachine {
  hostname: string;
  /** Where its connections come from: 127.1.x.y. */
  address: string;
  boot: BootFacts;
  tpm: Tpm;
  clock: TpmClock;
  /** Its swtpm's process. */
  tpmPid: number;
  /** Its entry in the nodes file: both EKs approved. */
  entry: Record<string, unknown>;
}

/** Provisioning runs swtpm_setup and tpm2-tools processes: two at a time keep both cores busy. */
const PROVISION_AT_ONCE = 2;

export async function startMachines(dir: string, n: number): Promise<{ machines: StormMachine[]; stop(): Promise<void> }> {
  const eventLog = new Uint8Array(await readFile(BOOT_LOG));
  const swtpms: RunningSwtpm[] = [];
  const machines: StormMachine[] = new Array(n);
  const one = async (i: number) => {
    const tpmState = await provisionTpm(join(dir, `tpm-${i}`), { caDir: join(dir, 'ca') });
    const swtpm = await startSwtpm(tpmState.stateDir);
    swtpms.push(swtpm);
    const clock = new TpmClock(await SocketTransport.connect({ path: swtpm.socketPath }));
    const tpm = new Tpm(clock);
    await simulateBoot(tpm, eventLog);
    clock.take();
    const k = i + 1;
    const hex = (b: number) => b.toString(16).padStart(2, '0');
    const serial = `STORM-${String(k).padStart(4, '0')}`;
    machines[i] = {
      hostname: `storm-${String(k).padStart(4, '0')}`,
      address: `127.1.${k >> 8}.${k & 255}`,
      boot: {
        serial,
        mac: `52:54:00:5e:${hex(k >> 8)}:${hex(k & 255)}`,
        bootId: `00000000-0000-4000-8000-${String(k).padStart(12, '0')}`,
        uuid: null,
        eventLog,
        lldp: null,
      },
      tpm,
      clock,
      tpmPid: swtpm.pid,
      entry: {
        model: 'm720q',
        class: 'worker',
        serial,
        approved_ek_rsa2048: ekHashOfCertificate(tpmState.ekCertRsaDer),
        approved_ek_eccp256: ekHashOfCertificate(tpmState.ekCertEccDer),
      },
    };
  };
  const stop = async () => {
    for (const m of machines) await m?.tpm.close().catch(() => undefined);
    await Promise.all(swtpms.map((s) => s.stop()));
  };
  try {
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < n; i = next++) await one(i);
    };
    await Promise.all(Array.from({ length: PROVISION_AT_ONCE }, worker));
  } catch (err) {
    await stop();
    throw err;
  }
  return { machines, stop };
}

/**
 * HookOS's logs in the lab, as on spore: the guest's Docker engine logs every container through
 * its syslog driver to the provisioning server, fleetd's own receiver journals each line under
 * `-t hookos` with the sender's address, and a private journald keeps them for the runbook's
 * query. The node's datagrams reach fleetd from its declared address (node-udp-relay.ts).
 */
import { startPrivateJournald, type PrivateJournald } from '../../syslog/journald.js';
import type { Verifier } from '../verifier.js';
import { startNodeUdpRelay } from './node-udp-relay.js';

export interface HookosSyslog {
  journald: PrivateJournald;
  /** `fleet serve`'s receiver: on the relay's address, into the private journald. */
  serveArgs: string[];
  /** The guest's SYSLOG_ADDRESS: the host as QEMU's user network shows it, and the relay's port. */
  guestAddress: string;
  /** Points the relay at the port fleetd's receiver bound (its `syslog.listening` audit line). */
  connect(verifier: Verifier, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startHookosSyslog(nodeAddress: string): Promise<HookosSyslog> {
  const journald = await startPrivateJournald();
  const relay = await startNodeUdpRelay(nodeAddress).catch(async (err: unknown) => {
    await journald.stop();
    throw err;
  });
  return {
    journald,
    serveArgs: ['--syslog-listen', `${relay.localAddress}:0`, '--journal-socket', journald.socketPath],
    guestAddress: `10.0.2.2:${relay.port}`,
    async connect(verifier, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      // The audit is fleetd's stdout, the "listening on" line that ends its start its stderr: either may come first.
      while (verifier.audited('syslog.listening').length === 0) {
        if (Date.now() > deadline) throw new Error(`fleetd's syslog receiver did not say where it listens within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
      relay.deliverTo(Number(verifier.audited('syslog.listening')[0]!.port));
    },
    async close() {
      await relay.close();
      await journald.stop();
    },
  };
}

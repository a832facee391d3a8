/**
 * `fleet serve`'s syslog options. The receiver listens on UDP 514 unless told otherwise, as the lab's
 * rsyslog hookos-syslog did. When that default cannot start (not root, rsyslog still holds 514, no
 * journald) fleetd says so and serves attestation anyway: logs are not worth refusing machines for.
 * A receiver asked for by name must start, or fleetd does not.
 */
import { FleetError, errorMessage } from '../../shared/errors.js';
import type { Audit } from '../audit.js';
import { parseListenAddress } from '../http/listen-address.js';
import type { SyslogMetrics } from './syslog-metrics.js';
import type { SyslogConfig } from '../config/serve-config.js';
import { JournalSocket } from './journal-socket.js';
import { startSyslogReceiver, type SyslogReceiver } from './receiver.js';

export async function startSyslog(
  cfg: SyslogConfig,
  metrics: SyslogMetrics,
  audit: Audit,
  warn: (line: string) => void = (line) => console.error(line),
): Promise<SyslogReceiver | undefined> {
  if (cfg.listen === null) return undefined;
  try {
    const listen = parseListenAddress(cfg.listen);
    return await startSyslogReceiver({ listen, journal: JournalSocket.open(cfg.journalSocket), metrics, audit });
  } catch (err) {
    if (cfg.asked || !(err instanceof FleetError)) throw err;
    const line = `fleetd: no HookOS syslog receiver: ${errorMessage(err)}; give --syslog-listen HOST:PORT (or off)`;
    audit('syslog.error', { reason: errorMessage(err) });
    warn(line);
    return undefined;
  }
}

/**
 * `fleet serve`'s syslog options. The receiver listens on UDP 514 unless told otherwise, as the lab's
 * rsyslog hookos-syslog did. When that default cannot start (not root, rsyslog still holds 514, no
 * journald) fleetd says so and serves attestation anyway: logs are not worth refusing machines for.
 * A receiver asked for by name must start, or fleetd does not.
 */
import { FleetError, errorMessage } from '../../shared/errors.js';
import type { Audit } from '../audit.js';
import { parseListenAddress } from '../http/listen-address.js';
import type { Metrics } from '../metrics.js';
import { DEFAULT_JOURNAL_SOCKET, JournalSocket } from './journal-socket.js';
import { startSyslogReceiver, type SyslogReceiver } from './receiver.js';

export const DEFAULT_SYSLOG_LISTEN = '0.0.0.0:514';

export const SYSLOG_OPTIONS = {
  'syslog-listen': { type: 'string' },
  'journal-socket': { type: 'string' },
} as const;

export const SYSLOG_USAGE = `  --syslog-listen HOST:PORT|off  receive HookOS's syslog over UDP into the journal (default
                      ${DEFAULT_SYSLOG_LISTEN}; [::]:514 for IPv4 and IPv6; off: no receiver)
  --journal-socket PATH  journald's native socket (default ${DEFAULT_JOURNAL_SOCKET})`;

export async function startSyslog(
  o: { 'syslog-listen'?: string | undefined; 'journal-socket'?: string | undefined },
  metrics: Metrics,
  audit: Audit,
  warn: (line: string) => void = (line) => console.error(line),
  defaults = { listen: DEFAULT_SYSLOG_LISTEN, journalSocket: DEFAULT_JOURNAL_SOCKET },
): Promise<SyslogReceiver | undefined> {
  const asked = o['syslog-listen'] !== undefined || o['journal-socket'] !== undefined;
  const where = o['syslog-listen'] ?? defaults.listen;
  if (where === 'off') return undefined;
  try {
    const listen = parseListenAddress(where);
    return await startSyslogReceiver({ listen, journal: JournalSocket.open(o['journal-socket'] ?? defaults.journalSocket), metrics, audit });
  } catch (err) {
    if (asked || !(err instanceof FleetError)) throw err;
    const line = `fleetd: no HookOS syslog receiver: ${errorMessage(err)}; give --syslog-listen HOST:PORT (or off)`;
    audit('syslog.error', { reason: errorMessage(err) });
    warn(line);
    return undefined;
  }
}

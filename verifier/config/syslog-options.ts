/**
 * `fleet syslog`'s options (options.ts): the HookOS syslog receiver run as a command of its own, so
 * that fleetd need not hold UDP 514 (`fleet serve --syslog-listen off`). The options both commands
 * take are defined here once.
 */
import { DEFAULT_JOURNAL_SOCKET } from '../syslog/journal-socket.js';
import { type OptionDef, optionsUsage } from '../../shared/options.js';

export const DEFAULT_SYSLOG_LISTEN = '0.0.0.0:514';
export const SYSLOG_LISTEN_HELP = "receive HookOS's syslog over UDP into the journal ([::]:514 for IPv4 and IPv6)";

export const JOURNAL_SOCKET_OPTION = { name: 'journal-socket', value: 'PATH', default: DEFAULT_JOURNAL_SOCKET, help: "journald's native socket" } as const;
export const SYSLOG_OPTIONS = [
  { name: 'listen', value: 'HOST:PORT', default: DEFAULT_SYSLOG_LISTEN, help: SYSLOG_LISTEN_HELP },
  JOURNAL_SOCKET_OPTION,
  { name: 'metrics-listen', value: 'HOST:PORT', help: "serve the receiver's counters at http://HOST:PORT/metrics, on loopback (default: not served)" },
  { name: 'help', help: 'print this and exit' },
] as const satisfies readonly OptionDef[];

export const SYSLOG_SYNOPSIS = 'fleet syslog [--listen HOST:PORT] [--journal-socket PATH] [--metrics-listen HOST:PORT]';

/** `fleet syslog --help`. */
export const syslogUsage = (): string => optionsUsage(SYSLOG_SYNOPSIS, SYSLOG_OPTIONS);

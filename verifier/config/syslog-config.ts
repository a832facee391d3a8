/** `fleet syslog`'s flags, read once into typed values: every usage error is raised before anything binds. */
import { type ListenAddress, parseListenAddress } from '../http/listen-address.js';
import { readOptions } from '../../shared/options.js';
import { SYSLOG_OPTIONS } from './syslog-options.js';

export interface SyslogCommandConfig {
  listen: ListenAddress;
  journalSocket: string;
  /** Where its /metrics is served, or null: not served. */
  metricsListen: ListenAddress | null;
}

export function parseSyslogConfig(args: string[], env: NodeJS.ProcessEnv): SyslogCommandConfig | 'help' {
  const o = readOptions(SYSLOG_OPTIONS, args, env);
  if (o === 'help') return 'help';
  const metrics = o.given('metrics-listen');
  return {
    listen: parseListenAddress(o.defaulted('listen')),
    journalSocket: o.defaulted('journal-socket'),
    metricsListen: metrics === undefined ? null : parseListenAddress(metrics),
  };
}

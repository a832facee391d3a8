/**
 * `fleet status`'s options (options.ts): the inventory and Tinkerbell's API as `fleet serve` names
 * them (the same definitions), then what to show and how.
 */
import { type OptionDef, optionsUsage } from '../../shared/options.js';
import { SERVE_OPTIONS } from './serve-options.js';

/** The options fleet status shares with fleet serve: where the inventory and the runs are read. */
const SHARED = ['state', 'nodes', 'netbox-url', 'netbox-token-file', 'binding-author', 'classes', 'node-network', 'kubeconfig', 'namespace'] as const;

export const STATUS_OPTIONS = [
  ...SERVE_OPTIONS.filter((o): o is (typeof SERVE_OPTIONS)[number] & { name: (typeof SHARED)[number] } => (SHARED as readonly string[]).includes(o.name)),
  { name: 'host', value: 'NAME[,NAME...]', help: 'only these devices' },
  { name: 'status', value: 'STATUS[,STATUS...]', help: 'only devices in these inventory statuses (planned, active, ...)' },
  { name: 'json', help: 'one JSON object per device, one per line' },
  { name: 'watch', help: 'redraw whenever what it shows changes, until interrupted' },
  { name: 'interval', value: 'SEC', default: '2', help: 'with --watch: how often it reads the inventory and Tinkerbell again' },
  { name: 'help', help: 'print this and exit' },
] as const satisfies readonly OptionDef[];

export const statusUsage = (): string =>
  optionsUsage('fleet status --nodes FILE --state DIR | --netbox-url URL --netbox-token-file FILE [--kubeconfig FILE] [options]', STATUS_OPTIONS, [
    "Without --kubeconfig, runs are not shown: the inventory's last_run alone is.",
  ]);

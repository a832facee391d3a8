import { parseArgs } from 'node:util';
import { FleetError } from '../../shared/errors.js';
import { dateCommand } from '../clock/set-clock.js';
import { captureLldpFrame } from '../lldp/capture.js';
import { consoleSay } from '../../shared/console/console-say.js';
import { ATTEST_TRIES } from '../attest/run.js';
import { runEdge } from './run-edge.js';

export const EDGE_USAGE = `usage: node agent.mjs edge [options]    (HookOS's tink-agent-autoid entrypoint)
Reads fleet_attest_url, fleet_ntp_server, BOOTIF= / ip= and worker_id from /proc/cmdline.
Options, for tests and debugging (defaults are the machine's):
  --root DIR          prefix of /proc, /sys and /worker (default /)
  --tpm SPEC          /dev/tpmrm0 (default), unix:/path/swtpm.sock or tcp:host:port
  --console PATH      where console lines also go (default /dev/console; "-" for stdout only)
  --date-command PATH sets the clock: PATH -u -s @SECONDS (default date)
  --lldp-window SEC   how long to wait for the switch's LLDP frame (default 35)
  --tries N           attempts (default ${ATTEST_TRIES.tries})
  --retry-delay SEC   between attempts (default ${ATTEST_TRIES.retryDelayS})`;

/** What the edge's options say, each defaulting to what a machine's boot uses; null for --help. */
export function edgeSettings(args: string[]): {
  root: string;
  tpm: string;
  console: string | null;
  dateCommand: string;
  lldpWindowMs: number;
  tries: number;
  retryDelayMs: number;
} | null {
  const { values: o } = parseArgs({
    args,
    options: {
      root: { type: 'string', default: '' },
      tpm: { type: 'string', default: '/dev/tpmrm0' },
      console: { type: 'string', default: '/dev/console' },
      'date-command': { type: 'string', default: 'date' },
      'lldp-window': { type: 'string', default: '35' },
      tries: { type: 'string', default: String(ATTEST_TRIES.tries) },
      'retry-delay': { type: 'string', default: String(ATTEST_TRIES.retryDelayS) },
      help: { type: 'boolean' },
    },
  });
  if (o.help) return null;
  const tries = Number(o.tries);
  const window = Number(o['lldp-window']);
  const delay = Number(o['retry-delay']);
  if (!Number.isInteger(tries) || tries < 1 || !(window >= 0) || !(delay >= 0))
    throw new FleetError('usage', `--tries must be a whole number ≥ 1, --lldp-window and --retry-delay ≥ 0\n${EDGE_USAGE}`);
  return {
    root: o.root,
    tpm: o.tpm,
    console: o.console === '-' ? null : o.console,
    dateCommand: o['date-command'],
    lldpWindowMs: window * 1000,
    tries,
    retryDelayMs: delay * 1000,
  };
}

/**
 * The entrypoint. Exits 0 whatever the verdict, so that tink-agent starts: without a code the
 * Template's actions wipe nothing, and the console says why.
 */
export async function edgeMain(args: string[]): Promise<number> {
  const settings = edgeSettings(args);
  if (!settings) {
    console.log(EDGE_USAGE);
    return 0;
  }
  await runEdge({
    root: settings.root,
    tpm: settings.tpm,
    say: consoleSay(settings.console),
    lldpWindowMs: settings.lldpWindowMs,
    tries: settings.tries,
    retryDelayMs: settings.retryDelayMs,
    setClock: dateCommand(settings.dateCommand),
    capture: captureLldpFrame,
  });
  return 0;
}

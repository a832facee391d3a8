import { parseArgs } from 'node:util';
import { FleetError } from '../../shared/errors.js';
import { dateCommand } from '../clock/set-clock.js';
import { captureLldpFrame } from '../lldp/capture.js';
import { consoleSay } from '../../shared/console/console-say.js';
import { runEdge } from './run-edge.js';

export const EDGE_USAGE = `usage: node agent.mjs edge [options]    (HookOS's tink-agent-autoid entrypoint)
Reads fleet_attest_url, fleet_ntp_server, BOOTIF= / ip= and worker_id from /proc/cmdline.
Options, for tests and debugging (defaults are the machine's):
  --root DIR          prefix of /proc, /sys and /worker (default /)
  --tpm SPEC          /dev/tpmrm0 (default), unix:/path/swtpm.sock or tcp:host:port
  --console PATH      where console lines also go (default /dev/console; "-" for stdout only)
  --date-command PATH sets the clock: PATH -u -s @SECONDS (default date)
  --lldp-window SEC   how long to wait for the switch's LLDP frame (default 35)
  --tries N           attempts (default 5)
  --retry-delay SEC   between attempts (default 30)`;

/**
 * The entrypoint. Exits 0 whatever the verdict, so that tink-agent starts: without a code the
 * Template's actions wipe nothing, and the console says why.
 */
export async function edgeMain(args: string[]): Promise<number> {
  const { values: o } = parseArgs({
    args,
    options: {
      root: { type: 'string', default: '' },
      tpm: { type: 'string', default: '/dev/tpmrm0' },
      console: { type: 'string', default: '/dev/console' },
      'date-command': { type: 'string', default: 'date' },
      'lldp-window': { type: 'string', default: '35' },
      tries: { type: 'string', default: '5' },
      'retry-delay': { type: 'string', default: '30' },
      help: { type: 'boolean' },
    },
  });
  if (o.help) {
    console.log(EDGE_USAGE);
    return 0;
  }
  const tries = Number(o.tries);
  const window = Number(o['lldp-window']);
  const delay = Number(o['retry-delay']);
  if (!Number.isInteger(tries) || tries < 1 || !(window >= 0) || !(delay >= 0))
    throw new FleetError('usage', `--tries must be a whole number ≥ 1, --lldp-window and --retry-delay ≥ 0\n${EDGE_USAGE}`);
  await runEdge({
    root: o.root,
    tpm: o.tpm,
    say: consoleSay(o.console === '-' ? null : o.console),
    lldpWindowMs: window * 1000,
    tries,
    retryDelayMs: delay * 1000,
    setClock: dateCommand(o['date-command']),
    capture: captureLldpFrame,
  });
  return 0;
}

import { promisify } from 'node:util';
import { errorMessage } from '../../shared/errors.js';
import { CLOCK_LINES, CLOCK_WHY } from './lines.js';
import { querySntp, type SntpAnswer } from './sntp.js';

/** No answer before this is believed: fleet did not exist yet. */
const EARLIEST = Date.parse('2025-01-01T00:00:00Z');
const LATEST = Date.parse('2100-01-01T00:00:00Z');
/** Closer than this, the clock is left alone. */
const GOOD_ENOUGH_MS = 500;

export interface ClockOptions {
  query?: (host: string, port: number) => Promise<SntpAnswer>;
  /** Sets the system clock to a Unix time in ms. */
  set?: (ms: number) => Promise<void>;
  now?: () => number;
}

/** `date -u -s @<seconds>`: Node cannot call clock_settime, and the agent's image has date. */
export function dateCommand(path = 'date'): (ms: number) => Promise<void> {
  return async (ms) => {
    // Loaded only when the clock is off: every module the agent loads delays its first TPM command.
    const { execFile } = await import('node:child_process');
    // Bounded: the verifier's first request waits for the clock, and the boot waits for the agent.
    await promisify(execFile)(path, ['-u', '-s', `@${(ms / 1000).toFixed(3)}`], { timeout: 5000, killSignal: 'SIGKILL' });
  };
}

/**
 * Sets the clock from fleet_ntp_server before anything checks a certificate. Returns the console
 * line (lines.ts). Never throws: a clock it cannot set is said, and attestation goes on (TLS may then fail,
 * and the line tells the operator why).
 */
export async function setClock(server: { host: string; port: number }, opts: ClockOptions = {}): Promise<string> {
  const now = opts.now ?? Date.now;
  const name = server.port === 123 ? server.host : `${server.host}:${server.port}`;
  const keep = (why: string) => CLOCK_LINES.kept(name, why, new Date(now()).toISOString());
  let answer: SntpAnswer;
  try {
    answer = await (opts.query ?? ((h, p) => querySntp(h, p)))(server.host, server.port);
  } catch (err) {
    return keep(errorMessage(err));
  }
  const target = now() + answer.offsetMs;
  if (target < EARLIEST || target > LATEST) return keep(CLOCK_WHY.implausible(new Date(target).toISOString()));
  if (Math.abs(answer.offsetMs) < GOOD_ENOUGH_MS) return CLOCK_LINES.close(String(Math.round(Math.abs(answer.offsetMs))), name);
  try {
    // Recomputed at the last moment: the offset holds, the moment moved.
    await (opts.set ?? dateCommand())(now() + answer.offsetMs);
  } catch (err) {
    return keep(CLOCK_WHY.setFailed(errorMessage(err)));
  }
  // A positive offset means the server is ahead: our clock was behind.
  return CLOCK_LINES.set(name, (Math.abs(answer.offsetMs) / 1000).toFixed(3), answer.offsetMs > 0 ? 'behind' : 'ahead', String(answer.stratum));
}

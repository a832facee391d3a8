/**
 * One boot storm: every machine runs the agent's attestation at the same moment, each from its own
 * address. And a peer that asks for more sessions than its share, which must get the 429s, and
 * leave none to the machines.
 */
import { performance } from 'node:perf_hooks';
import { attestOnce } from '../agent/attest/attest-once.js';
import { postJson, type ClientOptions } from '../agent/attest/verifier-client.js';
import { errorMessage } from '../shared/errors.js';
import { PATHS, StartAnswer, type StartRequest } from '../shared/wire/schemas.js';
import { fromAddress } from './source-address.js';
import type { StormMachine } from './storm-machines.js';

export interface Attested {
  address: string;
  /** The verdict, or null when none came (the reason is in `error`). */
  verdict: string | null;
  error?: string;
  /** The whole attestation, from its first TPM command to the verdict. */
  ms: number;
  tpmMs: number;
  /** The moment it ended, ms after the storm began. */
  at: number;
}

export interface Flood {
  address: string;
  /** A start as a machine sends it; each of the flood's claims another serial, which no per-serial cap stops. */
  body: StartRequest;
  /** Starts it sends: more than one peer's share of sessions. */
  starts: number;
}

const is429 = (err: unknown) => / answered 429:/.test(errorMessage(err));

/** One machine's attestation, timed; a failure is an outcome, not an error of the bench. */
export async function attestTimed(m: StormMachine, client: ClientOptions, t0 = performance.now()): Promise<Attested> {
  return fromAddress(m.address, async () => {
    const start = performance.now();
    m.clock.take();
    let verdict: string | null = null;
    let error: string | undefined;
    try {
      verdict = (await attestOnce(m.tpm, client, m.boot)).verdict;
    } catch (err) {
      error = is429(err) ? '429' : errorMessage(err);
    }
    const end = performance.now();
    return { address: m.address, verdict, ms: end - start, tpmMs: m.clock.take(), at: end - t0, ...(error ? { error } : {}) };
  });
}

/** The flooder keeps a few connections (fleetd caps them per address too) and sends its starts over them. */
const FLOOD_CONNECTIONS = 4;

/** The flooder's answers by kind: 200, 429, or another failure's text. */
export async function flood(f: Flood, client: ClientOptions): Promise<Map<string, number>> {
  const answers = new Map<string, number>();
  let sent = 0;
  const connection = async () => {
    for (let k = sent++; k < f.starts; k = sent++) {
      const kind = await postJson(client, PATHS.start, { ...f.body, serial: `${f.body.serial}-${k}` }, StartAnswer).then(
        () => '200',
        (err: unknown) => (is429(err) ? '429' : errorMessage(err)),
      );
      answers.set(kind, (answers.get(kind) ?? 0) + 1);
    }
  };
  await fromAddress(f.address, () => Promise.all(Array.from({ length: FLOOD_CONNECTIONS }, connection)));
  return answers;
}

/** Every machine at once; `wallMs` from the first start to the last answer. */
export async function storm(machines: StormMachine[], client: ClientOptions): Promise<{ attested: Attested[]; wallMs: number }> {
  const t0 = performance.now();
  const attested = await Promise.all(machines.map((m) => attestTimed(m, client, t0)));
  return { attested, wallMs: Math.max(...attested.map((a) => a.at)) };
}

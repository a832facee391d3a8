import { setTimeout as sleep } from 'node:timers/promises';
import { errorMessage } from '../../shared/errors.js';
import type { Tpm } from '../../shared/tpm/client.js';
import { RETRYABLE_VERDICTS, type Verdict } from '../../shared/wire/verdicts.js';
import { dirname } from 'node:path';
import { writeAttestedMarker } from '../../shared/worker/marker.js';
import { removeInstallCode, writeInstallCode } from '../install-code.js';
import { attestOnce, type PendingBootFacts } from './attest-once.js';
import { ATTEST_LINES } from './lines.js';
import type { ClientOptions } from './verifier-client.js';

/** How often and how far apart the agent attests before it gives up (the Tinkerbell page's five tries, 30 seconds apart). */
export const ATTEST_TRIES = { tries: 5, retryDelayS: 30 } as const;

export interface AttestRun {
  tpm: Tpm;
  client: ClientOptions;
  boot: PendingBootFacts;
  installCodePath: string;
  /** Prints one console line (lines.ts). */
  say: (line: string) => void;
  tries?: number;
  /** Between tries. */
  retryDelayMs?: number;
  wait?: (ms: number) => Promise<void>;
}

export type AttestOutcome = { kind: 'passed'; installCode: boolean } | { kind: 'failed'; verdict: Verdict } | { kind: 'no-verdict'; tries: number };

/**
 * Attests this boot: up to `tries` times (`attest: try N failed: <reason>` for each that got no
 * verdict), then prints `attest: PASSED` or `attest: FAILED <verdict>: <reason>`. A code that an
 * earlier boot or try left is removed first, so only this attestation's pass leaves one.
 */
export async function runAttestation(run: AttestRun): Promise<AttestOutcome> {
  const tries = run.tries ?? ATTEST_TRIES.tries;
  const wait = run.wait ?? ((ms: number) => sleep(ms));
  await removeInstallCode(run.installCodePath);
  for (let n = 1; n <= tries; n++) {
    let reason: string;
    try {
      const answer = await attestOnce(run.tpm, run.client, run.boot);
      if (answer.verdict === 'attested') {
        await writeAttestedMarker(dirname(run.installCodePath), { bootId: run.boot.bootId, at: new Date().toISOString() });
        run.say(ATTEST_LINES.passed());
        if (!answer.installCode) return { kind: 'passed', installCode: false };
        await writeInstallCode(run.installCodePath, answer.installCode);
        run.say(ATTEST_LINES.codeWritten());
        return { kind: 'passed', installCode: true };
      }
      if (!RETRYABLE_VERDICTS.has(answer.verdict)) {
        run.say(ATTEST_LINES.failed(answer.verdict, answer.message));
        return { kind: 'failed', verdict: answer.verdict };
      }
      reason = `${answer.verdict}: ${answer.message}`;
    } catch (err) {
      reason = errorMessage(err);
    }
    run.say(ATTEST_LINES.tryFailed(String(n), reason));
    if (n < tries) await wait(run.retryDelayMs ?? ATTEST_TRIES.retryDelayS * 1000);
  }
  run.say(ATTEST_LINES.noVerdictAfter(String(tries)));
  return { kind: 'no-verdict', tries };
}

/**
 * The console lines of the attestation itself (run.ts), which `edge` and the bare `attest` both
 * print, and of the agent's own failure (entry.ts). `attest: PASSED` and `attest: FAILED <verdict>`
 * are the runbook's contract: an operator watching the console reads them.
 */
import { said } from '../../shared/text/line-def.js';

const agentError = said({
  when: "the agent itself fails (a usage error; `attest`'s TPM that cannot be opened): on stdout only, and it exits 2",
  args: ['message', 'error code'],
  text: (message, code) => `attest: agent error: ${message}${code ? ` [${code}]` : ''}`,
});

export const ATTEST_LINES = {
  tryFailed: said({
    when: 'a try got no verdict (the network, the TPM, or a verdict worth retrying); the next follows after the retry delay',
    args: ['N', 'why'],
    text: (n, why) => `attest: try ${n} failed: ${why}`,
  }),
  passed: said({
    when: "the verifier's verdict is attested: the TPM proved every EK the entry approves",
    args: [],
    text: () => 'attest: PASSED',
  }),
  codeWritten: said({
    when: 'after PASSED, when the verifier answered an install code (a run is under way): it is in /worker/fleet, mode 0600',
    args: [],
    text: () => 'install code written',
  }),
  failed: said({
    when: 'a verdict that no retry changes (the machine, its TPM or its entry must change first)',
    args: ['verdict', 'message'],
    text: (verdict, message) => `attest: FAILED ${verdict}: ${message}`,
  }),
  noVerdictAfter: said({
    when: 'every try failed',
    args: ['tries'],
    text: (tries) => `attest: no verdict after ${tries} tries; read journalctl -u fleetd on the verifier`,
  }),
  noVerdict: said({
    when: "`edge` could not try at all: a step before the first try refused (below), or the machine's facts or its TPM could not be read",
    args: ['why'],
    text: (why) => `attest: no verdict: ${why}`,
  }),
  agentError,
  noCommand: said({
    when: 'agent.mjs was started with no command, or one it does not have; its usage follows',
    args: ['command'],
    text: (command) => agentError(command ? `no command ${command}` : 'no command', ''),
  }),
};

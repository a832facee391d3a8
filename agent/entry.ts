/**
 * The HookOS entrypoint bundle (dist/agent.mjs), with its two modes as commands:
 * - `edge`: the edge runtime, reading the kernel command line (what tink-agent-autoid runs on every netboot);
 * - `attest --url URL ...`: one attestation with explicit facts (the demo, and an operator's manual run).
 */
import { FleetError, errorMessage } from '../shared/errors.js';
import { ATTEST_LINES } from './attest/lines.js';
import { edgeMain } from './edge/main.js';
import { main } from './main.js';

const USAGE =
  'usage: node agent.mjs edge [options]          the edge runtime (HookOS)\n       node agent.mjs attest --url URL [options] one attestation with explicit facts';

const [command, ...args] = process.argv.slice(2);
const edge = command === 'edge';
const run = edge ? edgeMain : command === 'attest' ? main : null;
// tink-agent starts only after this exits: a handle something left open must not hold the boot.
const exitSoon = () => void (edge && setTimeout(() => process.exit(), 2000).unref());
if (!run) {
  console.log(ATTEST_LINES.noCommand(command ?? ''));
  console.log(USAGE);
  process.exitCode = 2;
} else {
  run(args).then(
    (code) => {
      process.exitCode = code;
      exitSoon();
    },
    (err: unknown) => {
      console.log(ATTEST_LINES.agentError(errorMessage(err), err instanceof FleetError ? err.code : ''));
      process.exitCode = 2;
      exitSoon();
    },
  );
}

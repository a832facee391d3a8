/**
 * The HookOS entrypoint bundle (dist/agent.mjs). With no --url it is the edge runtime, reading the
 * kernel command line (what hook-bootkit runs); with --url, one attestation with explicit facts
 * (the demo, and an operator's manual run).
 */
import { FleetError, errorMessage } from '../shared/errors.js';
import { edgeMain } from './edge/main.js';
import { main } from './main.js';

const args = process.argv.slice(2);
const edge = !args.some((a) => a === '--url' || a.startsWith('--url='));
// tink-agent starts only after this exits: a handle something left open must not hold the boot.
const exitSoon = () => void (edge && setTimeout(() => process.exit(), 2000).unref());
(edge ? edgeMain(args) : main(args)).then(
  (code) => {
    process.exitCode = code;
    exitSoon();
  },
  (err: unknown) => {
    console.log(`attest: agent error: ${errorMessage(err)}${err instanceof FleetError ? ` [${err.code}]` : ''}`);
    process.exitCode = 2;
    exitSoon();
  },
);

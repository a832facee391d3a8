/** The HookOS entrypoint bundle (dist/agent.mjs): `node agent.mjs --url ... [options]`. */
import { FleetError, errorMessage } from '../shared/errors.js';
import { main } from './main.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    console.log(`attest: agent error: ${errorMessage(err)}${err instanceof FleetError ? ` [${err.code}]` : ''}`);
    process.exitCode = 2;
  },
);

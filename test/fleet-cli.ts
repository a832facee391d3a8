import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../', import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `fleet ARGS` from the repo as a user would (`tsx cli/fleet.ts`), and resolves whatever it exits with. */
export function fleetCli(...args: string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile('node_modules/.bin/tsx', ['cli/fleet.ts', ...args], { cwd: REPO }, (err, stdout, stderr) => {
      resolve({ code: err ? Number(err.code) : 0, stdout, stderr });
    });
  });
}

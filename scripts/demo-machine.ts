/**
 * `npm run demo -- --machine`: the runbook's "Plug a machine in" on a real (QEMU) machine, the
 * lab's whole loop around it (fleetd, Kubernetes' API server with Tinkerbell's objects, Tinkerbell's
 * rendering and agent, HookOS's Docker engine), narrated as it happens. It is the end-to-end
 * scenario test itself (test/e2e/runbook-plug-in.test.ts), run with narration on: what the demo
 * shows is what the suite checks. The first run prepares the machine's parts (a few minutes).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../', import.meta.url));

export function demoMachine(): number {
  const deps = spawnSync(process.execPath, ['scripts/ensure-deps.mjs', '--e2e'], { cwd: REPO, stdio: 'inherit' });
  if (deps.status !== 0) return deps.status ?? 1;
  const vitest = spawnSync(
    process.execPath,
    ['node_modules/vitest/vitest.mjs', 'run', '--config', 'test/e2e/vitest.config.ts', 'test/e2e/runbook-plug-in.test.ts'],
    {
      cwd: REPO,
      stdio: 'inherit',
      env: { ...process.env, FLEET_DEMO: '1' },
    },
  );
  return vitest.status ?? 1;
}

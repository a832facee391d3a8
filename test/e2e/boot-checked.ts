/** A boot inside a test: the guest's key console lines are printed when any check of the test fails. */
import { expect, onTestFailed } from 'vitest';
import type { HostServices, Machine } from './machine.js';
import type { E2eRun } from './manifest.js';
import { keyConsoleLines, type BootResult, type RunningBoot } from './vm.js';

export async function bootChecked(
  run: E2eRun,
  m: Machine,
  script: string,
  params: Record<string, string>,
  services: HostServices,
  during?: (boot: RunningBoot) => Promise<void>,
): Promise<BootResult> {
  const boot = await m.boot(run, script, params, services);
  onTestFailed(() => console.error(`e2e ${script} (boot ${boot.number} of ${m.serial}), the guest's console:\n${keyConsoleLines(boot.lines)}`));
  if (during) await during(boot);
  const result = await boot.done;
  expect(result.timedOut, 'the boot hit its hard timeout').toBe(false);
  return result;
}

/**
 * The demo's narration (`npm run demo -- --machine` sets FLEET_DEMO=1): what the lab does, and the
 * machine's own key console lines, printed as they happen. Silent in the suite.
 */
export const narrating = process.env.FLEET_DEMO === '1';

export function narrate(text: string): void {
  if (narrating) process.stderr.write(`\n▶ ${text}\n`);
}

export function narrateConsole(serial: string, line: string): void {
  if (narrating) process.stderr.write(`  │ ${serial}: ${line}\n`);
}

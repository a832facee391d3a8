import { appendFileSync } from 'node:fs';

/**
 * Each line to stdout (the container's log, which HookOS's Docker sends to syslog) and to the
 * machine's console, where the operator watching the node reads `attest: PASSED` and each action's
 * lines. A console that cannot be written is skipped quietly: stdout still has the line.
 */
export function consoleSay(consolePath: string | null = '/dev/console'): (line: string) => void {
  let writable = consolePath !== null;
  return (line) => {
    process.stdout.write(`${line}\n`);
    if (!writable) return;
    try {
      appendFileSync(consolePath!, `${line}\n`);
    } catch {
      writable = false;
    }
  };
}

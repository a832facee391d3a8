/**
 * Runs synchronous cleanups when this process ends, on a normal exit and on SIGTERM/SIGINT/SIGHUP
 * (a signal skips 'exit', and vitest stops its fork workers with SIGTERM).
 */
const cleanups = new Set<() => void>();
let installed = false;

function runAll(): void {
  for (const fn of cleanups) {
    try {
      fn();
    } catch {
      // Best effort: one failed cleanup must not skip the others.
    }
  }
  cleanups.clear();
}

/** Registers `fn`; returns a function that unregisters it (call it once cleaned up normally). */
export function atExit(fn: () => void): () => void {
  if (!installed) {
    installed = true;
    process.on('exit', runAll);
    for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
      const onSignal = (): void => {
        runAll();
        // Re-raise without our listener so the process still dies the way the sender meant.
        process.off(sig, onSignal);
        process.kill(process.pid, sig);
      };
      process.on(sig, onSignal);
    }
  }
  cleanups.add(fn);
  return () => cleanups.delete(fn);
}

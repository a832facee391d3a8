/** Polls `done` every 10 ms; rejects with `why()` after `timeoutMs`. */
export async function waitUntil(done: () => boolean | Promise<boolean>, timeoutMs: number, why: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${why()}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

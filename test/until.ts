/** Polls `check` until it answers something truthy, and answers that; fails naming `what` after `ms`. */
export async function until<T>(what: string, check: () => T | Promise<T>, ms = 10_000, everyMs = 50): Promise<NonNullable<T>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

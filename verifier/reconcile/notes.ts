/**
 * What the reconciler has already journaled, so that a line is said once per event, not once a
 * pass. A note is about a run (its Workflow) or a device, and is forgotten with it. The local
 * store keeps each as its key: `wf:<run>:<event>` or `dev:<host>:<event>:<detail>` (Kubernetes
 * names and host names hold no colon, so the subject is the second field). This file alone builds
 * and reads keys.
 */

/**
 * A run's events: its start, its abandonment, a HookOS boot after its success, its end; and, set
 * by an attestation, a boot of it refused its code (so wipe-disk wiped nothing).
 */
export type RunEvent = 'started' | 'abandoned' | 'hookos-after' | 'ended' | 'code-refused';

/**
 * A device's standing conditions: a wait (for a run to end, or for what a run lacks; the detail
 * says which, so a different wait is news), a BMC type fleetd does not drive, an object of another
 * owner, a run's power cycle that failed at an address (a failure at the next address is news).
 */
export type DeviceEvent = 'waits' | 'bmc' | 'foreign' | 'job-failed';

export type Note = { run: string; event: RunEvent } | { host: string; event: DeviceEvent; detail: string };

export function noteKey(note: Note): string {
  return 'run' in note ? `wf:${note.run}:${note.event}` : `dev:${note.host}:${note.event}:${note.detail}`;
}

/** What a stored key is about; null for a key of no shape this version writes (kept, not guessed at). */
export function noteSubject(key: string): { run: string } | { host: string } | null {
  const [scope, id] = key.split(':');
  if (!id) return null;
  return scope === 'wf' ? { run: id } : scope === 'dev' ? { host: id } : null;
}

/** Whether `key` is one of `host`'s waits, which are forgotten together once the wait is over. */
export function isWaitOf(key: string, host: string): boolean {
  return key.startsWith(`dev:${host}:waits:`);
}

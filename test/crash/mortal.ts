/**
 * A fleetd process that dies: its parts (kube client, inventory, local store) wrapped so that after
 * `budget` writes in all, the next write does not happen and nothing of that process happens after
 * (every later call throws, reads too), as after a SIGKILL. What was written stays written: the API
 * server's objects and SQLite's committed rows. A fresh set of parts over the same server and
 * database is the restarted fleetd.
 */
export class Killed extends Error {}

/** The calls that write, by method name, on the parts fleetd writes through. */
export const WRITES = new Set([
  'create',
  'patch',
  'delete',
  'createLease',
  'replaceLease', // the kube client
  'recordAttested',
  'recordVerdict',
  'journal',
  'setDesiredAction',
  'recordRun',
  'setStatus', // the inventory
  'note',
  'forgetNotes',
  'bindInstallCode',
  'recordInstallCode',
  'markServed',
  'recordClaim',
  'dropClaim', // the local store
]);

export interface Mortal {
  wrap<T extends object>(part: T): T;
  died(): boolean;
  /** The writes that happened, in order ("create Workflow" for the kube client's), and the one that did not. */
  done: string[];
  refused(): string | null;
}

export function mortal(budget: number): Mortal {
  let left = budget;
  let dead = false;
  const done: string[] = [];
  let refused: string | null = null;
  const wrap = <T extends object>(part: T): T =>
    new Proxy(part, {
      get(t, prop, recv) {
        const v = Reflect.get(t, prop, recv) as unknown;
        if (typeof v !== 'function') return v;
        return (...args: unknown[]) => {
          if (dead) throw new Killed('fleetd is gone');
          const name = String(prop);
          if (WRITES.has(name)) {
            const what = ['create', 'patch', 'delete'].includes(name) ? `${name} ${String(args[0])}` : name;
            if (left === 0) {
              dead = true;
              refused = what;
              throw new Killed('fleetd is gone');
            }
            left--;
            done.push(what);
          }
          return (v as (...a: unknown[]) => unknown).apply(t, args);
        };
      },
    });
  return { wrap, died: () => dead, done, refused: () => refused };
}

/**
 * A command's running parts, in one place: each is registered as it starts, and all are stopped in
 * the reverse order, when the command ends or when a later part fails to start (the command stops
 * them in a `finally`). So a part that cannot start leaves no open socket, database or Lease
 * behind it, whichever part it is.
 */
import { errorMessage } from '../shared/errors.js';

export type Stop = () => unknown;

export class Parts {
  private readonly stops: Array<{ name: string; stop: Stop }> = [];

  /** A part that is running: `stop` ends it. */
  add<T>(name: string, part: T, stop: (part: T) => unknown): T {
    this.stops.push({ name, stop: () => stop(part) });
    return part;
  }

  /** The running parts' names, in the order they stop. */
  names(): string[] {
    return this.stops.map((s) => s.name).reverse();
  }

  /**
   * Stops every part, the last started first. A stop that throws does not keep the others running:
   * the first such error is raised once all have been asked.
   */
  async stopAll(): Promise<void> {
    const failures: unknown[] = [];
    for (const { name, stop } of this.stops.splice(0).reverse()) {
      try {
        await stop();
      } catch (err) {
        failures.push(new Error(`stopping ${name}: ${errorMessage(err)}`, { cause: err }));
      }
    }
    if (failures.length > 0) throw failures[0];
  }
}

/** Resolves on the first SIGTERM or SIGINT: how a systemd stop or a ^C ends a command. */
export function untilStopped(): Promise<string> {
  return new Promise((resolve) => {
    const on = (signal: string) => {
      process.off('SIGTERM', on);
      process.off('SIGINT', on);
      resolve(signal);
    };
    process.on('SIGTERM', on);
    process.on('SIGINT', on);
  });
}

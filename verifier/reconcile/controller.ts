import { errorMessage } from '../../shared/errors.js';
import type { Audit } from '../audit.js';
import type { LeaderLease } from './lease.js';
import type { PassResult, Reconciler } from './reconciler.js';

export interface ControllerOptions {
  intervalMs: number;
  lease?: LeaderLease;
  audit: Audit;
}

/**
 * Runs reconcile passes on an interval and on demand, one at a time: a request during a pass
 * runs one more pass after it, not a second pass beside it. Only the Lease holder writes. A
 * failure is logged once until the next pass succeeds, not every interval.
 */
export class Controller {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private again = false;
  private lastError: string | undefined;
  private stopped = false;

  constructor(
    private readonly reconciler: Reconciler,
    private readonly opts: ControllerOptions,
  ) {}

  start(): void {
    this.trigger();
    this.timer = setInterval(() => this.trigger(), this.opts.intervalMs);
    this.timer.unref();
  }

  /** Asks for a pass soon (after an attestation changed desired_action, say). */
  trigger(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.loop().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      await this.once();
    } while (this.again && !this.stopped);
  }

  private async once(): Promise<void> {
    let result: PassResult;
    try {
      if (this.opts.lease && !(await this.opts.lease.hold())) return;
      result = await this.reconciler.pass();
    } catch (err) {
      result = { writes: 0, planned: 0, error: errorMessage(err), warnings: [] };
    }
    if (result.error) {
      if (result.error !== this.lastError) this.opts.audit('reconcile.failed', { error: result.error, writes: result.writes });
      this.lastError = result.error;
      return;
    }
    if (this.lastError) this.opts.audit('reconcile.recovered', {});
    this.lastError = undefined;
    if (result.writes || result.warnings.length)
      this.opts.audit('reconcile.pass', { writes: result.writes, warnings: result.warnings.length ? result.warnings : undefined });
  }

  /** Ends the passes, then releases the lease (a failed release is logged; the lease then expires). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
    await this.opts.lease?.release().catch((err: unknown) => this.opts.audit('reconcile.lease', { outcome: 'kept', error: errorMessage(err) }));
  }
}

import { setTimeout as sleep } from 'node:timers/promises';
import { decodeResponse, encodeCommand, type Command, type Response } from './command.js';
import { isRetryable, TpmError } from './rc.js';
import type { Transport } from './transport.js';

export interface TpmOptions {
  /** How many times a command answered RETRY, YIELDED or TESTING is resent. */
  retries?: number;
  /** Wait before the first resend; doubles each time. */
  retryDelayMs?: number;
}

/**
 * Sends commands to a TPM and turns non-zero response codes into `TpmError`s. It owns no TPM
 * state: whoever creates an object or session flushes it (see `withFlush`).
 */
export class Tpm {
  private readonly retries: number;
  private readonly retryDelayMs: number;

  constructor(
    readonly transport: Transport,
    opts: TpmOptions = {},
  ) {
    this.retries = opts.retries ?? 8;
    this.retryDelayMs = opts.retryDelayMs ?? 10;
  }

  /** Runs a command; resolves with its response, or rejects with a `TpmError` or a parse error. */
  async run(c: Command): Promise<Response> {
    const bytes = encodeCommand(c);
    for (let attempt = 0; ; attempt++) {
      const res = decodeResponse(c, await this.transport.transmit(bytes));
      if (res.rc === 0) return res;
      if (!isRetryable(res.rc) || attempt >= this.retries) throw new TpmError(c.name, res.rc);
      await sleep(this.retryDelayMs * 2 ** attempt);
    }
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}

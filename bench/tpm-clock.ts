import { performance } from 'node:perf_hooks';
import type { Transport } from '../shared/tpm/transport.js';

/**
 * A TPM transport that adds up the time a command is in flight, wrapped around the agent's own
 * (the agent is unchanged): the TPM's part of an attestation. Overlapping calls count once, since
 * the transport queues them and the TPM works on one at a time.
 */
export class TpmClock implements Transport {
  private busy = 0;
  private since = 0;
  private total = 0;

  constructor(private readonly inner: Transport) {}

  /** ms in TPM commands since the last call, and the count starts again. */
  take(): number {
    const ms = this.total;
    this.total = 0;
    return ms;
  }

  async transmit(command: Uint8Array): Promise<Uint8Array> {
    if (this.busy++ === 0) this.since = performance.now();
    try {
      return await this.inner.transmit(command);
    } finally {
      if (--this.busy === 0) this.total += performance.now() - this.since;
    }
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

import type { AuditFields } from '../audit-events.js';
import type { Audit } from '../audit.js';

type Fields = AuditFields<'attest.verdict'> & { verdict: string };

interface Window {
  start: number;
  lines: number;
  suppressed: Map<string, number>;
}

/**
 * The audit of refusals a peer can provoke without a TPM (a start's claimed keys, a finish's unknown
 * or replayed session): one `attest.verdict` line each up to `perWindow` per peer and window, then
 * counted, and one `attest.refusals` line per peer and window says how many were left out, by
 * verdict. So a flood cannot bury the journal, and a peer that is refused now and then still has
 * every line. Every refusal is counted in the verdict metric either way.
 */
export class RefusalAudit {
  /** Windows by peer, oldest first (a peer's new window goes to the end). */
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly audit: Audit,
    private readonly count: (verdict: string) => void,
    private readonly perWindow = 8,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  refused(peer: string, fields: Fields): void {
    const t = this.now();
    this.flushEnded(t);
    let w = this.windows.get(peer);
    if (!w) this.windows.set(peer, (w = { start: t, lines: 0, suppressed: new Map() }));
    this.count(fields.verdict);
    if (w.lines < this.perWindow) {
      w.lines++;
      this.audit('attest.verdict', fields);
      return;
    }
    w.suppressed.set(fields.verdict, (w.suppressed.get(fields.verdict) ?? 0) + 1);
  }

  /** Writes the summary of every window that has ended by `t`. */
  flushEnded(t = this.now()): void {
    for (const [peer, w] of this.windows) {
      if (t - w.start < this.windowMs) break;
      this.windows.delete(peer);
      if (!w.suppressed.size) continue;
      const total = [...w.suppressed.values()].reduce((a, b) => a + b, 0);
      this.audit('attest.refusals', { peer, suppressed: total, verdicts: Object.fromEntries(w.suppressed), windowS: this.windowMs / 1000 });
    }
  }
}

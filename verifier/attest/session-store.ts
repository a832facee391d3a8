import { randomBytes } from 'node:crypto';
import type { CheckedAk, ClaimedEk } from './keys.js';
import { Refusal } from './refusal.js';

/** One attestation in flight: what `start` promised to check at `finish`. */
export interface Session {
  id: string;
  serial: string;
  mac: string;
  eks: ClaimedEk[];
  ak: CheckedAk;
  nonce: Uint8Array;
  /** The secret each EK's credential wraps, by EK kind. */
  secrets: Map<string, Uint8Array>;
  expiresAt: number;
}

interface Slot {
  session: Session;
  used: boolean;
}

/**
 * Sessions live in memory only: a restarted verifier forgets them and the agent starts over.
 * Each is single-use and expires; a finished or expired one is remembered until twice its time to
 * live so a replay gets its own verdict, then forgotten. The count is capped so a flood of starts
 * cannot exhaust memory: the oldest go first.
 */
export class SessionStore {
  private readonly slots = new Map<string, Slot>();

  constructor(
    readonly ttlMs = 60_000,
    private readonly max = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** When a session started now expires. */
  deadline(): number {
    return this.now() + this.ttlMs;
  }

  newId(): string {
    return randomBytes(18).toString('base64url');
  }

  add(session: Session): void {
    this.sweep();
    while (this.slots.size >= this.max) this.slots.delete(this.slots.keys().next().value!);
    this.slots.set(session.id, { session, used: false });
  }

  /** Takes the session for `finish`: it can never be taken again, expired or not. */
  take(id: string): Session {
    const slot = this.slots.get(id);
    if (!slot) throw new Refusal('session-unknown', 'the verifier holds no such session; start again');
    if (slot.used) throw new Refusal('session-replayed', 'this session was already finished once');
    slot.used = true;
    return slot.session;
  }

  /** Refuses a session taken after its time to live. */
  checkLive(session: Session): void {
    if (this.now() > session.expiresAt) throw new Refusal('session-expired', `the session expired after ${this.ttlMs / 1000} s; start again`);
  }

  get size(): number {
    return this.slots.size;
  }

  private sweep(): void {
    const cutoff = this.now() - this.ttlMs;
    // Insertion order is expiry order: stop at the first live one.
    for (const [id, slot] of this.slots) {
      if (slot.session.expiresAt > cutoff) break;
      this.slots.delete(id);
    }
  }
}

import { randomBytes } from 'node:crypto';
import { FleetError } from '../../shared/errors.js';
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
  peer: string;
  used: boolean;
}

/** A peer holds too many sessions: answered 429, and the agent tries again later. */
export class TooManySessions extends FleetError {
  readonly statusCode = 429;
}

export interface SessionLimits {
  /** All sessions held, live or remembered. */
  total: number;
  /** Sessions one peer address may hold. */
  perPeer: number;
  /** Unfinished sessions per claimed serial; a new one evicts that serial's oldest. */
  perSerial: number;
}

const DEFAULT_LIMITS: SessionLimits = { total: 10_000, perPeer: 64, perSerial: 4 };

/**
 * Sessions live in memory only: a restarted verifier forgets them and the agent starts over.
 * Each is single-use and expires; a finished or expired one is remembered until twice its time to
 * live so a replay gets its own verdict, then forgotten. Floods are bounded three ways: per peer
 * (refused), per claimed serial (that serial's oldest goes, so flooding a serial hurts only the
 * flooder's own claim), and in all (the oldest go).
 */
export class SessionStore {
  private readonly slots = new Map<string, Slot>();
  private readonly byPeer = new Map<string, number>();
  private readonly bySerial = new Map<string, string[]>();
  private readonly limits: SessionLimits;

  constructor(
    readonly ttlMs = 60_000,
    limits: Partial<SessionLimits> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  /** When a session started now expires. */
  deadline(): number {
    return this.now() + this.ttlMs;
  }

  newId(): string {
    return randomBytes(18).toString('base64url');
  }

  /** Refuses a peer that already holds its share; call before doing any work for it. */
  admit(peer: string): void {
    this.sweep();
    if ((this.byPeer.get(peer) ?? 0) >= this.limits.perPeer) {
      throw new TooManySessions('too-many-sessions', `${peer} holds ${this.limits.perPeer} attestation sessions; try again in ${Math.ceil((2 * this.ttlMs) / 1000)} s`);
    }
  }

  add(session: Session, peer: string): void {
    this.admit(peer);
    for (let mine = this.bySerial.get(session.serial); mine && mine.length >= this.limits.perSerial; mine = this.bySerial.get(session.serial)) {
      this.remove(mine[0]!);
    }
    while (this.slots.size >= this.limits.total) this.remove(this.slots.keys().next().value!);
    this.slots.set(session.id, { session, peer, used: false });
    this.byPeer.set(peer, (this.byPeer.get(peer) ?? 0) + 1);
    this.bySerial.set(session.serial, [...(this.bySerial.get(session.serial) ?? []), session.id]);
  }

  /** Takes the session for `finish`: it can never be taken again, expired or not. */
  take(id: string): Session {
    const slot = this.slots.get(id);
    if (!slot) throw new Refusal('session-unknown', 'the verifier holds no such session; start again');
    if (slot.used) throw new Refusal('session-replayed', 'this session was already finished once');
    slot.used = true;
    this.unlistSerial(slot.session);
    return slot.session;
  }

  /** Refuses a session taken after its time to live. */
  checkLive(session: Session): void {
    if (this.now() > session.expiresAt) throw new Refusal('session-expired', `the session expired after ${this.ttlMs / 1000} s; start again`);
  }

  get size(): number {
    return this.slots.size;
  }

  private unlistSerial(session: Session): void {
    const ids = this.bySerial.get(session.serial)?.filter((x) => x !== session.id) ?? [];
    if (ids.length) this.bySerial.set(session.serial, ids);
    else this.bySerial.delete(session.serial);
  }

  private remove(id: string): void {
    const slot = this.slots.get(id);
    if (!slot) return;
    this.slots.delete(id);
    const n = (this.byPeer.get(slot.peer) ?? 1) - 1;
    if (n > 0) this.byPeer.set(slot.peer, n);
    else this.byPeer.delete(slot.peer);
    if (!slot.used) this.unlistSerial(slot.session);
  }

  private sweep(): void {
    const cutoff = this.now() - this.ttlMs;
    // Insertion order is expiry order: stop at the first one still remembered.
    for (const [id, slot] of this.slots) {
      if (slot.session.expiresAt > cutoff) break;
      this.remove(id);
    }
  }
}

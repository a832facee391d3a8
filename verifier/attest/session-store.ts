import { randomBytes } from 'node:crypto';
import { httpStatus } from '../../shared/error-codes.js';
import { FleetError } from '../../shared/errors.js';
import { DEFAULT_GROUP_PREFIXES, type GroupPrefixes } from '../../shared/net/address-group.js';
import { AddressHoldings } from '../../shared/net/address-holdings.js';
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

/** A peer holds too many sessions: answered with the registry's status, and the agent tries again later. */
export class TooManySessions extends FleetError {
  readonly statusCode = httpStatus('too-many-sessions');
}

export interface SessionLimits {
  /** All sessions held, live or remembered. */
  total: number;
  /** Sessions one peer address may hold, refused starts counted. */
  perPeer: number;
  /** Sessions one address group (its /24 or /64) may hold. */
  perGroup: number;
  groups: GroupPrefixes;
  /** Unfinished sessions one peer may hold for one claimed serial; a new one evicts that peer's oldest for it. */
  perSerial: number;
}

/** 4,096 sessions of up to 42 KiB each fit the unit's MemoryMax= (deploy/systemd/fleetd.service) with the rest. */
const DEFAULT_LIMITS: SessionLimits = { total: 4096, perPeer: 64, perGroup: 1024, perSerial: 4, groups: DEFAULT_GROUP_PREFIXES };

/**
 * Sessions live in memory only: a restarted verifier forgets them and the agent starts over.
 * Each is single-use and expires; a finished or expired one is remembered until twice its time to
 * live so a replay gets its own verdict, then forgotten. Anyone can claim any serial, so no cap
 * is keyed on the serial alone: floods are bounded by what a peer cannot forge, its address. Per
 * peer, refused (a start refused after its work counts as a session, so a peer cannot make that
 * work for free); per peer and claimed serial, that peer's own oldest goes, so claiming another
 * machine's serial evicts nothing of that machine's; and per address group and in all, a new
 * session takes the place of the oldest of the largest holder (address-holdings.ts), so a table
 * filled from many addresses, even a whole /64 of them, sheds the flooders first.
 */
export class SessionStore {
  private readonly slots = new Map<string, Slot>();
  /** Each peer's sessions, by address group and address, oldest first. */
  private readonly held: AddressHoldings<string>;
  /** Each peer's unfinished sessions per claimed serial, oldest first. */
  private readonly bySerial = new Map<string, string[]>();
  /** Refused starts still held against their peers, oldest first, and how many each peer has. */
  private readonly refusedQueue: Array<{ peer: string; at: number }> = [];
  private readonly refused = new Map<string, number>();
  private readonly limits: SessionLimits;

  constructor(
    readonly ttlMs = 60_000,
    limits: Partial<SessionLimits> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
    this.held = new AddressHoldings({ perAddress: this.limits.perPeer, perGroup: this.limits.perGroup, total: this.limits.total, groups: this.limits.groups });
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
    if (this.held.count(peer) + (this.refused.get(peer) ?? 0) >= this.limits.perPeer) {
      throw new TooManySessions(
        'too-many-sessions',
        `${peer} holds ${this.limits.perPeer} attestation sessions; try again in ${Math.ceil((2 * this.ttlMs) / 1000)} s`,
      );
    }
  }

  /** A start refused after its work: it holds the peer's share as a session would, for as long. */
  chargeRefused(peer: string): void {
    this.refusedQueue.push({ peer, at: this.now() });
    this.refused.set(peer, (this.refused.get(peer) ?? 0) + 1);
  }

  add(session: Session, peer: string): void {
    this.admit(peer);
    const key = serialKey(session.serial, peer);
    for (let mine = this.bySerial.get(key); mine && mine.length >= this.limits.perSerial; mine = this.bySerial.get(key)) this.remove(mine[0]!);
    // Its own share was checked by admit(): past the group's or the total cap, the largest holder's oldest gives way.
    const admission = this.held.admit(peer, () => true, true);
    if (admission.take && admission.evict !== null) this.remove(admission.evict);
    this.slots.set(session.id, { session, peer, used: false });
    this.held.add(session.id, peer);
    this.bySerial.set(key, [...(this.bySerial.get(key) ?? []), session.id]);
  }

  /** Takes the session for `finish`: it can never be taken again, expired or not. */
  take(id: string): Session {
    const slot = this.slots.get(id);
    if (!slot) throw new Refusal('session-unknown', 'the verifier holds no such session; start again');
    if (slot.used) throw new Refusal('session-replayed', 'this session was already finished once');
    slot.used = true;
    this.unlist(this.bySerial, serialKey(slot.session.serial, slot.peer), id);
    return slot.session;
  }

  /** Refuses a session taken after its time to live. */
  checkLive(session: Session): void {
    if (this.now() > session.expiresAt) throw new Refusal('session-expired', `the session expired after ${this.ttlMs / 1000} s; start again`);
  }

  get size(): number {
    return this.slots.size;
  }

  private unlist(map: Map<string, string[]>, key: string, id: string): void {
    const ids = map.get(key)?.filter((x) => x !== id) ?? [];
    if (ids.length) map.set(key, ids);
    else map.delete(key);
  }

  private remove(id: string): void {
    const slot = this.slots.get(id);
    if (!slot) return;
    this.slots.delete(id);
    this.held.remove(id);
    if (!slot.used) this.unlist(this.bySerial, serialKey(slot.session.serial, slot.peer), id);
  }

  private sweep(): void {
    const cutoff = this.now() - this.ttlMs;
    // Insertion order is expiry order: stop at the first one still remembered.
    for (const [id, slot] of this.slots) {
      if (slot.session.expiresAt > cutoff) break;
      this.remove(id);
    }
    const since = this.now() - 2 * this.ttlMs;
    while (this.refusedQueue[0] && this.refusedQueue[0].at <= since) {
      const { peer } = this.refusedQueue.shift()!;
      const left = (this.refused.get(peer) ?? 1) - 1;
      if (left > 0) this.refused.set(peer, left);
      else this.refused.delete(peer);
    }
  }
}

const serialKey = (serial: string, peer: string) => `${peer}\n${serial}`;

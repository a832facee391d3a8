import { addressGroup, DEFAULT_GROUP_PREFIXES, type GroupPrefixes } from '../../shared/net/address-group.js';

/** Wrong install codes one address, one address group and everyone together may send per window. */
export interface GuessLimits {
  perAddress: number;
  perGroup: number;
  total: number;
  windowMs: number;
  groups: GroupPrefixes;
}

/**
 * A node sends one code, its own, so any wrong code is someone else's guess. With 256-bit codes a
 * guess never lands; what a flood of them costs is fleetd's time and an audit line each. These
 * let a node that lost track of its code try for a long while, and hold a flood to a few lines.
 */
export const DEFAULT_GUESS_LIMITS: GuessLimits = { perAddress: 30, perGroup: 300, total: 3000, windowMs: 60_000, groups: DEFAULT_GROUP_PREFIXES };

/** Addresses (and groups) counted one by one in a window; past it, a newcomer counts in the total only. */
const MAX_TRACKED = 16_384;

export type GuessScope = 'address' | 'group' | 'total';

/** Whether a fetch is answered: `first` is the window's first refusal of that scope's holder, the one audited. */
export type GuessVerdict = { limited: false } | { limited: true; scope: GuessScope; limit: number; retryAfterS: number; first: boolean };

/**
 * Wrong codes counted per address, per address group and in all, in fixed windows. An address past
 * its share is refused before its code is looked at: a node's address never gets there. Past the
 * group's or the total cap, codes are still looked at, so a node on an address group that someone
 * floods is served its own; only the wrong ones are refused, and none is audited one by one.
 */
export class GuessLimit {
  private window = -1;
  private readonly byAddress = new Map<string, number>();
  private readonly byGroup = new Map<string, number>();
  private total = 0;
  private readonly refused = new Set<string>();

  constructor(private readonly limits: GuessLimits = DEFAULT_GUESS_LIMITS) {}

  /** Before the code is looked at. */
  before(address: string, now: number): GuessVerdict {
    this.roll(now);
    if ((this.byAddress.get(address) ?? 0) < this.limits.perAddress) return { limited: false };
    return this.refuse('address', address, now);
  }

  /** After the code proved one fleetd never gave. */
  wrong(address: string, now: number): GuessVerdict {
    this.roll(now);
    const group = addressGroup(address, this.limits.groups);
    const mine = this.byAddress.get(address);
    if (mine !== undefined || this.byAddress.size < MAX_TRACKED) this.byAddress.set(address, (mine ?? 0) + 1);
    const inGroup = (this.byGroup.get(group) ?? 0) + 1;
    if (inGroup > 1 || this.byGroup.size < MAX_TRACKED) this.byGroup.set(group, inGroup);
    this.total++;
    if ((this.byAddress.get(address) ?? 0) > this.limits.perAddress) return this.refuse('address', address, now);
    if (inGroup > this.limits.perGroup) return this.refuse('group', group, now);
    if (this.total > this.limits.total) return this.refuse('total', '', now);
    return { limited: false };
  }

  private refuse(scope: GuessScope, holder: string, now: number): GuessVerdict {
    const key = `${scope}:${holder}`;
    const first = !this.refused.has(key);
    this.refused.add(key);
    const limit = scope === 'address' ? this.limits.perAddress : scope === 'group' ? this.limits.perGroup : this.limits.total;
    const retryAfterS = Math.max(1, Math.ceil(((this.window + 1) * this.limits.windowMs - now) / 1000));
    return { limited: true, scope, limit, retryAfterS, first };
  }

  private roll(now: number): void {
    const window = Math.floor(now / this.limits.windowMs);
    if (window === this.window) return;
    this.window = window;
    this.byAddress.clear();
    this.byGroup.clear();
    this.refused.clear();
    this.total = 0;
  }
}

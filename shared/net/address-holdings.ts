import { addressGroup, type GroupPrefixes } from './address-group.js';

/** How many items one address, one address group and everyone together may hold. */
export interface HoldingCaps {
  perAddress: number;
  perGroup: number;
  total: number;
  groups: GroupPrefixes;
}

/** Whether a newcomer is taken: as it is, after `evict` goes, or refused because of which cap. */
export type Admission<T> = { take: true; evict: T | null } | { take: false; cap: 'address' | 'group' | 'total' };

/**
 * Items (connections, sessions) held per address and per address group, oldest first. A newcomer
 * is refused once its own address holds its share; past the group's or the total cap, it takes
 * the place of the oldest item of whoever holds the most (the largest group, then its largest
 * address), and only of a holder larger than it would be: so a table that many addresses fill
 * sheds the flooders, and a machine with one connection is never the one to go.
 */
export class AddressHoldings<T> {
  private readonly byGroup = new Map<string, Map<string, Set<T>>>();
  private readonly groupSizes = new Map<string, number>();
  private readonly where = new Map<T, { group: string; address: string }>();

  constructor(readonly caps: HoldingCaps) {}

  get size(): number {
    return this.where.size;
  }

  count(address: string): number {
    return this.byGroup.get(this.groupOf(address))?.get(address)?.size ?? 0;
  }

  /**
   * Whether `address` may add one, and what must go first. `evictable`: items that may be taken
   * away. `shedOwn`: the newcomer's own holdings may give way too, when they are the largest (a
   * session table always takes the newest); otherwise only a holder larger than it would be does.
   */
  admit(address: string, evictable: (item: T) => boolean = () => true, shedOwn = false): Admission<T> {
    const group = this.groupOf(address);
    const mine = this.count(address);
    if (mine >= this.caps.perAddress) return { take: false, cap: 'address' };
    const groupSize = this.groupSizes.get(group) ?? 0;
    if (groupSize >= this.caps.perGroup) {
      const evict = oldestOfLargest([this.byGroup.get(group)!], shedOwn ? 0 : mine + 1, evictable);
      return evict === null ? { take: false, cap: 'group' } : { take: true, evict };
    }
    if (this.size >= this.caps.total) {
      const evict = oldestOfLargest(this.groupsLargerThan(shedOwn ? 0 : groupSize + 1), 0, evictable);
      return evict === null ? { take: false, cap: 'total' } : { take: true, evict };
    }
    return { take: true, evict: null };
  }

  add(item: T, address: string): void {
    const group = this.groupOf(address);
    let members = this.byGroup.get(group);
    if (!members) this.byGroup.set(group, (members = new Map()));
    let items = members.get(address);
    if (!items) members.set(address, (items = new Set()));
    items.add(item);
    this.groupSizes.set(group, (this.groupSizes.get(group) ?? 0) + 1);
    this.where.set(item, { group, address });
  }

  remove(item: T): void {
    const at = this.where.get(item);
    if (!at) return;
    this.where.delete(item);
    const members = this.byGroup.get(at.group)!;
    const items = members.get(at.address)!;
    items.delete(item);
    if (items.size === 0) members.delete(at.address);
    if (members.size === 0) this.byGroup.delete(at.group);
    const left = this.groupSizes.get(at.group)! - 1;
    if (left > 0) this.groupSizes.set(at.group, left);
    else this.groupSizes.delete(at.group);
  }

  /** The groups holding more than `more`, largest first: the largest alone unless it has nothing to give. */
  private *groupsLargerThan(more: number): Generator<Map<string, Set<T>>> {
    let largest: string | undefined;
    for (const [g, n] of this.groupSizes) if (n > more && (largest === undefined || n > this.groupSizes.get(largest)!)) largest = g;
    if (largest === undefined) return;
    yield this.byGroup.get(largest)!;
    const rest = [...this.groupSizes].filter(([g, n]) => g !== largest && n > more).sort((a, b) => b[1] - a[1]);
    for (const [g] of rest) yield this.byGroup.get(g)!;
  }

  private groupOf(address: string): string {
    return addressGroup(address, this.caps.groups);
  }
}

/**
 * The oldest evictable item of the largest address holding more than `more` items, trying the
 * groups in the order given; null when none does.
 */
function oldestOfLargest<T>(groups: Iterable<Map<string, Set<T>>>, more: number, evictable: (item: T) => boolean): T | null {
  for (const members of groups) {
    const addresses = [...members.values()].filter((items) => items.size > more).sort((a, b) => b.size - a.size);
    for (const items of addresses) for (const item of items) if (evictable(item)) return item;
  }
  return null;
}

import { describe, expect, it } from 'vitest';
import { addressGroup } from '../../shared/net/address-group.js';
import { AddressHoldings } from '../../shared/net/address-holdings.js';

describe('address groups', () => {
  it.each([
    ['10.0.1.77', '10.0.1.0/24'],
    ['::ffff:10.0.1.77', '10.0.1.0/24'],
    ['fd00:0:0:1:2:3:4:5', 'fd00:0:0:1::/64'],
    ['2001:db8:abcd:12::1', '2001:db8:abcd:12::/64'],
    ['fe80::1%eth0', 'fe80::/64'],
    ['2001:db8::1.2.3.4', '2001:db8::/64'],
  ])('%s is in %s', (address, group) => {
    expect(addressGroup(address)).toBe(group);
  });

  it('takes the sizes given', () => {
    expect(addressGroup('10.0.17.5', { v4: 20, v6: 48 })).toBe('10.0.16.0/20');
    expect(addressGroup('2001:db8:abcd:12::1', { v4: 20, v6: 48 })).toBe('2001:db8:abcd::/48');
    expect(addressGroup('10.0.17.5', { v4: 32, v6: 128 })).toBe('10.0.17.5/32');
  });
});

const caps = { perAddress: 4, perGroup: 8, total: 12, groups: { v4: 24, v6: 64 } };

function filled(spec: Record<string, number>): { h: AddressHoldings<string>; items: string[] } {
  const h = new AddressHoldings<string>(caps);
  const items: string[] = [];
  for (const [address, n] of Object.entries(spec))
    for (let i = 0; i < n; i++) {
      const item = `${address}#${i}`;
      h.add(item, address);
      items.push(item);
    }
  return { h, items };
}

describe('holdings per address and per group', () => {
  it('refuses an address that holds its share', () => {
    expect(filled({ '10.0.1.1': 4 }).h.admit('10.0.1.1')).toEqual({ take: false, cap: 'address' });
  });

  it("in a full group, a newcomer takes the oldest of the group's largest address, never of one as small as it", () => {
    const { h } = filled({ '10.0.1.1': 4, '10.0.1.2': 3, '10.0.1.3': 1 });
    expect(h.admit('10.0.1.9')).toEqual({ take: true, evict: '10.0.1.1#0' });
    // 10.0.1.3 holds 1: taking 10.0.1.1's place would leave it 2 against 3, so it may; 10.0.1.2 with 3 may not.
    expect(h.admit('10.0.1.3')).toEqual({ take: true, evict: '10.0.1.1#0' });
    expect(h.admit('10.0.1.2')).toEqual({ take: false, cap: 'group' });
  });

  it('in a full table, a newcomer from a small group takes the place of the largest group’s, and only of an evictable item', () => {
    const { h } = filled({ '10.0.1.1': 4, '10.0.1.2': 4, '10.0.2.1': 4 });
    expect(h.admit('10.0.3.1')).toEqual({ take: true, evict: '10.0.1.1#0' });
    expect(h.admit('10.0.3.1', (i) => !i.startsWith('10.0.1.1'))).toEqual({ take: true, evict: '10.0.1.2#0' });
    expect(h.admit('10.0.3.1', () => false)).toEqual({ take: false, cap: 'total' });
    // A group as large as the newcomer's would become gives nothing up.
    expect(h.admit('10.0.2.9')).toEqual({ take: true, evict: '10.0.1.1#0' });
  });

  it('forgets what is removed', () => {
    const { h, items } = filled({ '10.0.1.1': 4 });
    for (const i of items) h.remove(i);
    expect(h.size).toBe(0);
    expect(h.admit('10.0.1.1')).toEqual({ take: true, evict: null });
  });
});

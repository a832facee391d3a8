/**
 * lldpd's recorded captures decode to what lldpd's own tests assert (EXPECTED.json, transcribed
 * from `lldpcli -f keyvalue show neighbors details`): every value in that file is checked.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findDecoded } from '../../shared/lldp/org.js';
import { parseLldpFrame, parseLldpdu } from '../../shared/lldp/parse.js';
import type { LldpFrame, MedInventoryField } from '../../shared/lldp/types.js';
import { CAPTURES, LLDPD, frameOf } from './fixtures.js';

type Json = string | { [key: string]: Json };
const EXPECTED = JSON.parse(readFileSync(LLDPD + 'EXPECTED.json', 'utf8')) as Record<string, Json>;

const yesNo = (b: boolean | undefined): string | undefined => (b === undefined ? undefined : b ? 'yes' : 'no');
const macPhy = (f: LldpFrame) => findDecoded(f, 'dot3-mac-phy');
const power = (f: LldpFrame) => findDecoded(f, 'dot3-power');
const policy = (f: LldpFrame) => findDecoded(f, 'med-network-policy');
const civic = (f: LldpFrame) => findDecoded(f, 'med-location')?.civic;
const civicElement = (f: LldpFrame, name: string) => civic(f)?.elements.find((e) => e.typeName === name)?.value;
const inventory = (field: MedInventoryField) => (f: LldpFrame) =>
  f.orgSpecific.find((o) => o.decoded?.kind === 'med-inventory' && o.decoded.field === field)?.decoded as { value: string } | undefined;
const str = (n: number | undefined): string | undefined => (n === undefined ? undefined : String(n));
/**
 * lldpctl names the source of a PSE from its table for PDs (lldpd's atoms/dot3.c swaps the two
 * tables), so its "PSE" is source code 1, which 802.3 names "primary power source" for a PSE.
 */
const LLDPCTL_PSE_SOURCE_LABELS: Record<number, string> = { 1: 'PSE', 3: 'PSE + Local' };

/** lldpctl's key (as flattened from EXPECTED.json) → the same fact read from our decoding. */
const READERS: Record<string, (f: LldpFrame) => string | undefined> = {
  via: () => 'LLDP',
  'chassis.mac': (f) => (f.chassisId.subtypeName === 'mac' ? f.chassisId.value : undefined),
  'port.ttl': (f) => String(f.ttl),
  'port.ifname': (f) => (f.portId.subtypeName === 'ifName' ? f.portId.value : undefined),
  'dot3.autoneg.supported': (f) => yesNo(macPhy(f)?.autonegSupported),
  'dot3.autoneg.enabled': (f) => yesNo(macPhy(f)?.autonegEnabled),
  'dot3.autoneg.1000Base-T.hd': (f) => yesNo(macPhy(f)?.advertisedNames.includes('1000BASE-T')),
  'dot3.autoneg.1000Base-T.fd': (f) => yesNo(macPhy(f)?.advertisedNames.includes('1000BASE-T FD')),
  'dot3.autoneg.current': (f) => macPhy(f)?.mauTypeName,
  'lldp-med.device-type': (f) => findDecoded(f, 'med-capabilities')?.deviceTypeName,
  'lldp-med.Civic address.country': (f) => civic(f)?.country,
  'lldp-med.Civic address.city': (f) => civicElement(f, 'city'),
  'lldp-med.Civic address.street': (f) => civicElement(f, 'street'),
  'lldp-med.Civic address.building': (f) => civicElement(f, 'building'),
  'lldp-med.inventory.hardware': (f) => inventory('hardwareRevision')(f)?.value,
  'lldp-med.inventory.software': (f) => inventory('softwareRevision')(f)?.value,
  'lldp-med.inventory.firmware': (f) => inventory('firmwareRevision')(f)?.value,
  'lldp-med.inventory.serial': (f) => inventory('serialNumber')(f)?.value,
  'lldp-med.inventory.manufacturer': (f) => inventory('manufacturer')(f)?.value,
  'lldp-med.inventory.model': (f) => inventory('model')(f)?.value,
  'lldp-med.inventory.asset': (f) => inventory('assetId')(f)?.value,
  'lldp-med.policy.apptype': (f) => policy(f)?.appTypeName,
  'lldp-med.policy.defined': (f) => yesNo(policy(f)?.defined),
  'lldp-med.policy.priority': (f) => policy(f)?.priorityName,
  'lldp-med.policy.pcp': (f) => str(policy(f)?.priority),
  'lldp-med.policy.dscp': (f) => str(policy(f)?.dscp),
  'power.supported': (f) => yesNo(power(f)?.pseSupported),
  'power.enabled': (f) => yesNo(power(f)?.pseEnabled),
  'power.paircontrol': (f) => yesNo(power(f)?.pairControl),
  'power.device-type': (f) => power(f)?.portClass,
  'power.pairs': (f) => power(f)?.psePowerPairsName,
  'power.class': (f) => power(f)?.powerClassName,
  'power.power-type': (f) => str(power(f)?.at?.powerType),
  'power.source': (f) => {
    const at = power(f)?.at;
    return at && at.deviceType === 'PSE' ? LLDPCTL_PSE_SOURCE_LABELS[at.powerSource] : undefined;
  },
  'power.priority': (f) => power(f)?.at?.priorityName,
  'power.requested': (f) => str(power(f)?.at?.requestedMw),
  'power.allocated': (f) => str(power(f)?.at?.allocatedMw),
  'power.requested-a': (f) => str(power(f)?.bt?.requestedAMw),
  'power.requested-b': (f) => str(power(f)?.bt?.requestedBMw),
  'power.allocated-a': (f) => str(power(f)?.bt?.allocatedAMw),
  'power.allocated-b': (f) => str(power(f)?.bt?.allocatedBMw),
  'power.pse-powering-status': (f) => power(f)?.bt?.pseStatusName,
  'power.pd-powering-status': (f) => power(f)?.bt?.pdStatusName,
  'power.power-pairs-ext': (f) => power(f)?.bt?.psePairsExtName,
  'power.power-class-ext-a': (f) => power(f)?.bt?.classExtAName,
  'power.power-class-ext-b': (f) => power(f)?.bt?.classExtBName,
  'power.power-class-ext': (f) => power(f)?.bt?.classExtName,
  'power.power-type-ext': (f) => power(f)?.bt?.powerTypeExtName,
  'power.pd-load': (f) => power(f)?.bt?.pdLoadName,
  'power.max-power': (f) => str(power(f)?.bt?.pseMaxAvailableMw),
};

/** EXPECTED.json's groups under lldpctl's key prefixes: `expect` is unprefixed. */
const GROUP_PREFIX: Record<string, string> = { expect: '', expect_power: 'power.', expect_med: 'lldp-med.' };

function flatten(prefix: string, value: Json, out: [string, string][] = []): [string, string][] {
  if (typeof value === 'string') out.push([prefix, value]);
  else for (const [k, v] of Object.entries(value)) flatten(`${prefix}${prefix && !prefix.endsWith('.') ? '.' : ''}${k}`, v, out);
  return out;
}

/** Expectations EXPECTED.json states in prose rather than as values, checked by hand here. */
const PROSE: Record<string, (f: LldpFrame) => void> = {
  'connectx.pcap': (f) => {
    expect(f.systemName).toBeUndefined();
    expect(f.portId).toEqual({ subtype: 3, subtypeName: 'mac', value: '50:6b:4b:f6:1e:b1' });
  },
};

describe("lldpd's captures: every value EXPECTED.json holds", () => {
  const captures = Object.entries(EXPECTED).filter(([name]) => !name.startsWith('_') && !name.includes(' / '));
  it('covers the captures this suite knows', () => {
    expect(captures.map(([name]) => name).sort()).toEqual(['8023bt.pcap', 'connectx.pcap', 'med-loc-malformed.pcap', 'sg200.pcap']);
  });

  for (const [name, entry] of captures) {
    if (typeof entry === 'string') throw new Error(`EXPECTED.json: ${name} is not an object`);
    for (const [group, values] of Object.entries(entry)) {
      if (!(group in GROUP_PREFIX)) continue; // `device` and `note` describe; `note` is checked below
      if (typeof values === 'string') {
        it(`${name}: ${values}`, () => {
          expect(PROSE[name], `no check written for ${name}'s ${group}`).toBeDefined();
          PROSE[name]!(parseLldpFrame(frameOf(name)));
        });
        continue;
      }
      const pairs = flatten(GROUP_PREFIX[group]!, values);
      it(`${name}: ${pairs.length} values of ${group}`, () => {
        const frame = parseLldpFrame(frameOf(name));
        for (const [key, want] of pairs) {
          const read = READERS[key];
          expect(read, `no reader for lldpctl key ${key}`).toBeDefined();
          expect(read!(frame), key).toBe(want);
        }
      });
    }
  }
});

describe("lldpd's captures: the facts their descriptions state", () => {
  it('SG200: chassis MAC, port g1 by interface name, TTL 120, LLDP-MED inventory, no System Name', () => {
    const f = parseLldpFrame(frameOf('sg200.pcap'));
    expect(f.chassisId).toEqual({ subtype: 4, subtypeName: 'mac', value: '00:35:35:35:35:35' });
    expect(f.portId).toEqual({ subtype: 5, subtypeName: 'ifName', value: 'g1' });
    expect(f.ttl).toBe(120);
    expect(f.systemName).toBeUndefined();
    expect(f.orgSpecific.filter((o) => o.ouiName === 'LLDP-MED')).toHaveLength(9); // capabilities, location, 7 inventory
    expect(f.problems).toEqual([]);
  });

  it('Catalyst: sysName cisco-bt-switch, port Gi1/0/2, chassis c0:64:e4:a9:9b:80, 802.3bt power, PVID 1', () => {
    const f = parseLldpFrame(frameOf('8023bt.pcap'));
    expect(f.systemName).toBe('cisco-bt-switch');
    expect(f.portId).toEqual({ subtype: 5, subtypeName: 'ifName', value: 'Gi1/0/2' });
    expect(f.chassisId.value).toBe('c0:64:e4:a9:9b:80');
    expect(f.portDescription).toBe('GigabitEthernet1/0/2');
    expect(f.systemDescription).toMatch(/^Cisco IOS Software \[Gibraltar\], .*\nCompiled Tue 30-Jul-19 19:17 by mcpre$/s);
    expect(f.systemCapabilities).toMatchObject({ availableNames: ['bridge', 'router'], enabledNames: ['bridge'] });
    expect(f.managementAddresses).toEqual([
      { family: 1, familyName: 'ipv4', address: '192.168.1.1', interfaceSubtype: 3, interfaceSubtypeName: 'systemPortNumber', interfaceNumber: 53, oidHex: '' },
    ]);
    expect(findDecoded(f, 'dot1-port-vlan')).toEqual({ kind: 'dot1-port-vlan', vlanId: 1 });
    const p = power(f)!;
    expect(p.bt).toBeDefined();
    // 802.3 names a PSE's source code 1 "primary power source" (lldpctl prints "PSE", see above).
    expect(p.at).toMatchObject({ deviceType: 'PSE', powerSource: 1, powerSourceName: 'primary power source' });
    // Cisco's own TLV (OUI 00:01:42) is kept raw.
    expect(f.orgSpecific.at(-1)).toMatchObject({ oui: '00:01:42', subtype: 1, value: new Uint8Array([9]) });
    expect(f.orgSpecific.at(-1)!.decoded).toBeUndefined();
    expect(f.problems).toEqual([]);
  });

  it('ConnectX-4 Lx: chassis and port MACs, its Port Description, no System Name', () => {
    const f = parseLldpFrame(frameOf('connectx.pcap'));
    expect(f.chassisId).toEqual({ subtype: 4, subtypeName: 'mac', value: '50:6b:4b:f6:1e:b3' });
    expect(f.portDescription).toBe('ConnectX-4 Lx, 25G/10G/1G SFP');
    expect('systemName' in f).toBe(false);
    expect(f.problems).toEqual([]);
  });

  it('med-loc-malformed: the truncated location is reported, the other TLVs still decode', () => {
    const f = parseLldpFrame(frameOf('med-loc-malformed.pcap'));
    expect(f.problems).toEqual([
      'Chassis ID (chassisComponent) is not printable text; shown as hex',
      'LLDP-MED Location Identification TLV at byte 46: civic address LCI length 2 is too short for its what and country code (3 bytes); no address elements',
    ]);
    expect(f.chassisId).toEqual({ subtype: 1, subtypeName: 'chassisComponent', value: '0a:c0:de:9d:0a:74' });
    expect(f.portId.value).toBe('3e:3e:3e:3e:3e:3e');
    expect(f.ttl).toBe(16);
    expect(f.systemName).toBe('defensics');
    expect(f.portDescription).toBe('eth0');
    expect(f.systemDescription).toBe('Codenomicon Defensics Test Suite');
    expect(findDecoded(f, 'med-capabilities')?.deviceType).toBe(3);
    expect(civic(f)).toEqual({ what: 0x41, country: 'F5', elements: [] });
    // The two Intel TLVs around it are kept raw.
    expect(f.orgSpecific.filter((o) => o.oui === '00:1b:21').map((o) => [o.subtype, o.value.length])).toEqual([
      [0xc4, 143],
      [1, 2],
    ]);
  });

  it('SG200 fills fixed 32-byte inventory fields: a string ends at its NUL, stale bytes after it are dropped', () => {
    const f = parseLldpFrame(frameOf('sg200.pcap'));
    const manufacturer = f.orgSpecific.find((o) => o.subtype === 9 && o.ouiName === 'LLDP-MED')!;
    expect(manufacturer.value).toHaveLength(32);
    expect(Buffer.from(manufacturer.value).toString('latin1')).toMatch(/^0xbc00\u00001BWT\u0000+$/);
    expect(inventory('manufacturer')(f)?.value).toBe('0xbc00');
  });
});

describe("lldpd's raw frames (no pcap header, fuzzing seeds)", () => {
  it('lldp.0.raw: the three mandatory TLVs, then End and padding', () => {
    const f = parseLldpFrame(frameOf('lldp.0.raw'));
    expect(f).toMatchObject({
      ethernet: { destination: '01:80:c2:00:00:0e', source: '00:17:d1:a8:35:be', vlanIds: [] },
      chassisId: { subtypeName: 'mac', value: '00:17:d1:a8:35:bf' },
      portId: { subtypeName: 'mac', value: '00:17:d1:a8:36:02' },
      ttl: 120,
      problems: [],
    });
    expect(f.systemName).toBeUndefined();
  });

  it('lldp.1.raw: names, a management address and 802.3 and LLDP-MED TLVs', () => {
    const f = parseLldpFrame(frameOf('lldp.1.raw'));
    expect(f.systemName).toBe('naruto.XXXXXXXXXXXXXXXXXXX');
    expect(f.systemDescription).toBe('Linux 2.6.29-2-amd64 #1 SMP Sun May 17 17:15:47 UTC 2009 x86_64');
    expect(f.portDescription).toBe('eth0');
    expect(f.managementAddresses.map((m) => [m.address, m.interfaceSubtypeName, m.interfaceNumber])).toEqual([['10.238.80.75', 'ifIndex', 3]]);
    expect(macPhy(f)).toMatchObject({
      mauTypeName: '100BaseTXFD',
      advertisedNames: ['10BASE-T', '10BASE-T FD', '100BASE-TX', '100BASE-TX FD', '1000BASE-T', '1000BASE-T FD'],
    });
    expect(findDecoded(f, 'dot3-max-frame-size')?.size).toBe(1500);
    expect(inventory('model')(f)?.value).toBe('POWERMATE VL350');
    expect(f.problems).toEqual([]);
  });
});

describe('parseLldpdu', () => {
  for (const name of CAPTURES) {
    it(`reads ${name}'s LLDPDU alone as parseLldpFrame reads the frame`, () => {
      const frame = frameOf(name);
      const { ethernet, problems, ...whole } = parseLldpFrame(frame);
      const { problems: alone, ...rest } = parseLldpdu(frame.subarray(14));
      expect(ethernet).toBeDefined();
      expect(rest).toEqual(whole);
      expect(alone).toHaveLength(problems.length);
    });
  }
});

/**
 * The frame and TLV rules: mandatory TLVs refuse the frame with `lldp-malformed`, damaged optional
 * TLVs are skipped and described while the rest still decodes.
 */
import { describe, expect, it } from 'vitest';
import { concatBytes, fromHex } from '../../shared/bytes/hex.js';
import { ParseError } from '../../shared/errors.js';
import { findDecoded } from '../../shared/lldp/org.js';
import { parseLldpFrame, parseLldpdu } from '../../shared/lldp/parse.js';
import { buildLldpFrame } from './frame.js';
import { frameOf, tlv, tlvOffsets, withTlvs } from './fixtures.js';

const BASE = buildLldpFrame({ chassisMac: '24:5a:4c:00:00:01', portId: 'Port 7', systemName: 'usw-rack-1' });
const HEADER = BASE.subarray(0, 14);
const CHASSIS = tlv(1, 4, 0x24, 0x5a, 0x4c, 0, 0, 1);
const PORT = tlv(2, 5, ...Buffer.from('Port 7'));
const TTL = tlv(3, 0, 120);
const END = tlv(0);

function refusal(frame: Uint8Array): ParseError {
  try {
    parseLldpFrame(frame);
  } catch (err) {
    if (err instanceof ParseError) return err;
    throw err;
  }
  throw new Error('the frame was accepted');
}

describe('a frame without its mandatory TLVs is refused with lldp-malformed', () => {
  const cases: [string, Uint8Array, RegExp][] = [
    ['an Ethernet header alone', HEADER, /ends before the mandatory Chassis ID TLV/],
    ['a frame shorter than an Ethernet header', HEADER.subarray(0, 13), /shorter than an Ethernet header/],
    [
      'System Name first',
      concatBytes(HEADER, tlv(5, 0x61), CHASSIS, PORT, TTL, END),
      /expected the mandatory Chassis ID TLV, found System Name \(at byte 14\)/,
    ],
    ['no Port ID', concatBytes(HEADER, CHASSIS, TTL, END), /expected the mandatory Port ID TLV, found Time To Live/],
    ['Port ID before Chassis ID', concatBytes(HEADER, PORT, CHASSIS, TTL, END), /expected the mandatory Chassis ID TLV, found Port ID/],
    ['no TTL', concatBytes(HEADER, CHASSIS, PORT, END), /expected the mandatory Time To Live TLV, found End/],
    ['a 3-byte TTL', concatBytes(HEADER, CHASSIS, PORT, tlv(3, 0, 0, 120), END), /Time To Live TLV: has 3 bytes, not 2/],
    ['a reserved Chassis ID subtype', concatBytes(HEADER, tlv(1, 8, 1, 2, 3), PORT, TTL, END), /Chassis ID TLV: subtype 8 is reserved/],
    ['Port ID subtype 0', concatBytes(HEADER, CHASSIS, tlv(2, 0, 0x61), TTL, END), /Port ID TLV: subtype 0 is reserved/],
    ['an empty Chassis ID', concatBytes(HEADER, tlv(1, 4), PORT, TTL, END), /Chassis ID TLV: has 1 bytes; 802.1AB allows 2 to 256/],
    ['a Chassis ID longer than the frame', concatBytes(HEADER, fromHex('02ff04'), PORT), /Chassis ID TLV claims 255 bytes, 10 left/],
    ['the frame cut inside Port ID', BASE.subarray(0, 14 + CHASSIS.length + 4), /Port ID TLV claims 7 bytes, 2 left/],
    ['the frame cut inside a TLV header', BASE.subarray(0, 15), /ends before the mandatory Chassis ID TLV/],
  ];
  for (const [what, frame, message] of cases) {
    it(what, () => {
      const err = refusal(frame);
      expect(err.code).toBe('lldp-malformed');
      expect(err.message).toMatch(message);
    });
  }

  it('a truncated real frame (the SG200 cut inside its Port ID)', () => {
    const err = refusal(frameOf('sg200.pcap').subarray(0, 26));
    expect(err.code).toBe('lldp-malformed');
    expect(err.message).toBe('LLDP frame: Port ID TLV claims 3 bytes, 1 left (at byte 23)');
  });
});

describe('a frame that is not LLDP', () => {
  it('is refused with lldp-not-lldp, naming its ethertype', () => {
    const ipv4 = concatBytes(BASE.subarray(0, 12), fromHex('0800'), BASE.subarray(14));
    const err = refusal(ipv4);
    expect(err.code).toBe('lldp-not-lldp');
    expect(err.message).toMatch(/ethertype 0x0800/);
  });
});

describe('VLAN tags in front of the LLDPDU', () => {
  it('an 802.1Q tag', () => {
    const tagged = concatBytes(BASE.subarray(0, 12), fromHex('81000064'), BASE.subarray(12));
    const f = parseLldpFrame(tagged);
    expect(f.ethernet!.vlanIds).toEqual([100]);
    expect(f.systemName).toBe('usw-rack-1');
    expect(f.problems).toEqual([]);
  });

  it('802.1ad (QinQ): the outer S-tag first', () => {
    const tagged = concatBytes(BASE.subarray(0, 12), fromHex('88a800c8'), fromHex('81002064'), BASE.subarray(12));
    expect(parseLldpFrame(tagged).ethernet!.vlanIds).toEqual([200, 100]);
  });

  it('a tag with nothing after it is malformed', () => {
    expect(refusal(concatBytes(BASE.subarray(0, 12), fromHex('81000064'))).code).toBe('lldp-malformed');
  });
});

describe('damaged optional TLVs are skipped and described; the others still decode', () => {
  it('a TLV whose length runs past the frame ends the decoding there', () => {
    const cut = frameOf('connectx.pcap');
    const desc = tlvOffsets(cut)[3]!;
    const f = parseLldpFrame(cut.subarray(0, desc + 10));
    expect(f.portDescription).toBeUndefined();
    expect(f.ttl).toBe(48);
    expect(f.problems).toEqual([`LLDP frame: Port Description TLV claims 29 bytes, 8 left (at byte ${desc}); the rest of the LLDPDU is ignored`]);
  });

  it('a MAC/PHY TLV one byte short is kept raw, the TLVs after it decode', () => {
    const f = parseLldpFrame(withTlvs(BASE, tlv(127, 0x00, 0x12, 0x0f, 1, 3, 0, 1, 0), tlv(4, ...Buffer.from('uplink'))));
    expect(f.orgSpecific).toHaveLength(1);
    expect(f.orgSpecific[0]).toMatchObject({ oui: '00:12:0f', ouiName: '802.3', subtype: 1, value: new Uint8Array([3, 0, 1, 0]) });
    expect(f.orgSpecific[0]!.decoded).toBeUndefined();
    expect(f.problems).toHaveLength(1);
    expect(f.problems[0]).toMatch(
      /^802\.3 MAC\/PHY Configuration\/Status TLV at byte \d+ could not be decoded, kept raw: .*operational MAU type needs 2 bytes, 1 left/,
    );
    expect(f.portDescription).toBe('uplink');
  });

  it('a management address with a 3-byte IPv4 address is skipped', () => {
    const bad = tlv(8, 4, 1, 10, 0, 0, 2, 0, 0, 0, 1, 0);
    const good = tlv(8, 5, 1, 10, 0, 0, 1, 2, 0, 0, 0, 1, 0);
    const f = parseLldpFrame(withTlvs(BASE, bad, good));
    expect(f.managementAddresses.map((m) => m.address)).toEqual(['10.0.0.1']);
    expect(f.problems).toEqual([expect.stringMatching(/^Management Address TLV: a ipv4 address cannot be 3 bytes \(at byte \d+\); TLV skipped$/)]);
  });

  it('an IPv6 management address and one with an OID', () => {
    const v6 = fromHex('20010db8000000000000000000000001');
    const f = parseLldpFrame(withTlvs(BASE, tlv(8, 17, 2, ...v6, 1, 0, 0, 0, 0, 3, 0x2b, 6, 1)));
    expect(f.managementAddresses).toEqual([
      { family: 2, familyName: 'ipv6', address: '2001:db8::1', interfaceSubtype: 1, interfaceSubtypeName: 'unknown', interfaceNumber: 0, oidHex: '2b0601' },
    ]);
  });

  it('System Capabilities with a wrong length, a reserved TLV type and a short org TLV', () => {
    const f = parseLldpFrame(withTlvs(BASE, tlv(7, 0, 4, 0, 4, 0), tlv(9, 1, 2), tlv(127, 0, 0x80), tlv(6, ...Buffer.from('still here'))));
    expect(f.systemCapabilities).toBeUndefined();
    expect(f.orgSpecific).toEqual([]);
    expect(f.systemDescription).toBe('still here');
    expect(f.problems).toEqual([
      expect.stringMatching(/^System Capabilities TLV: 1 unexpected bytes after the capabilities \(at byte \d+\); TLV skipped$/),
      expect.stringMatching(/^reserved type 9 TLV at byte \d+ \(2 bytes\) is not defined by 802\.1AB and was ignored$/),
      expect.stringMatching(/^Organizationally Specific TLV: has 2 bytes, too short for an OUI and a subtype/),
    ]);
  });

  it('a repeated System Name keeps the first; a repeated Chassis ID is ignored', () => {
    const f = parseLldpFrame(withTlvs(BASE, tlv(5, 0x62), tlv(1, 7, 0x78)));
    expect(f.systemName).toBe('usw-rack-1');
    expect(f.chassisId.value).toBe('24:5a:4c:00:00:01');
    expect(f.problems).toEqual([
      expect.stringMatching(/^System Name TLV at byte \d+ repeats it; the first one is kept$/),
      expect.stringMatching(/^Chassis ID TLV at byte \d+ repeats a mandatory TLV and was ignored$/),
    ]);
  });

  it('a missing End TLV, a stray byte, an End with a length', () => {
    expect(parseLldpFrame(BASE.subarray(0, BASE.length - 2)).problems).toEqual(['the LLDPDU has no End TLV']);
    expect(parseLldpFrame(BASE.subarray(0, BASE.length - 1)).problems).toEqual([`the LLDPDU has no End TLV, only 1 stray byte at byte ${BASE.length - 2}`]);
    expect(parseLldpFrame(concatBytes(BASE.subarray(0, BASE.length - 2), tlv(0, 1))).problems).toEqual([
      `End TLV at byte ${BASE.length - 2} has 1 bytes, not 0`,
    ]);
  });

  it('bytes after End are padding', () => {
    expect(parseLldpFrame(concatBytes(BASE, new Uint8Array([0xde, 0xad, 0xbe, 0xef]))).problems).toEqual([]);
  });

  it('a destination that is not an LLDP group address is noted', () => {
    const unicast = concatBytes(fromHex('020000000001'), BASE.subarray(6));
    expect(parseLldpFrame(unicast).problems).toEqual(['destination 02:00:00:00:00:01 is not an LLDP group address']);
  });
});

describe('text and IDs', () => {
  it('text fields: bad UTF-8 becomes U+FFFD, trailing NULs go', () => {
    const f = parseLldpFrame(concatBytes(HEADER, CHASSIS, PORT, TTL, tlv(5, 0x61, 0xff, 0x62, 0, 0), END));
    expect(f.systemName).toBe('a\ufffdb');
  });

  it('a binary Port ID of a text subtype is shown as hex and noted', () => {
    const f = parseLldpdu(concatBytes(CHASSIS, tlv(2, 7, 0x01, 0x1b), TTL, END));
    expect(f.portId).toEqual({ subtype: 7, subtypeName: 'local', value: '01:1b' });
    expect(f.problems).toEqual(['Port ID (local) is not printable text; shown as hex']);
  });

  it('network-address IDs: IPv4, IPv6, and an unknown family as hex', () => {
    const v4 = parseLldpdu(concatBytes(tlv(1, 5, 1, 192, 0, 2, 1), tlv(2, 4, 2, ...fromHex('fe800000000000000000000000000001')), TTL, END));
    expect(v4.chassisId).toEqual({ subtype: 5, subtypeName: 'networkAddress', value: '192.0.2.1' });
    expect(v4.portId.value).toBe('fe80::1');
    const odd = parseLldpdu(concatBytes(tlv(1, 5, 9, 1, 2), PORT, TTL, END));
    expect(odd.chassisId.value).toBe('09:01:02');
    expect(odd.problems).toEqual(['Chassis ID (networkAddress) is not an address of a known family (family 9, 2 bytes); shown as hex']);
  });

  it('an agent circuit ID is opaque bytes: hex, without a problem', () => {
    const f = parseLldpdu(concatBytes(CHASSIS, tlv(2, 6, 0, 4, 0, 1), TTL, END));
    expect(f.portId).toEqual({ subtype: 6, subtypeName: 'agentCircuitId', value: '00:04:00:01' });
    expect(f.problems).toEqual([]);
  });

  it('TTL 0 (the neighbour is leaving) is a valid frame', () => {
    expect(parseLldpdu(concatBytes(CHASSIS, PORT, tlv(3, 0, 0), END)).ttl).toBe(0);
  });
});

describe('organizationally specific TLVs', () => {
  it('802.1 VLAN name and protocol VLAN; LLDP-MED extended power; an unknown OUI kept raw', () => {
    const f = parseLldpFrame(
      withTlvs(
        BASE,
        tlv(127, 0x00, 0x80, 0xc2, 3, 0, 10, 4, ...Buffer.from('prod')),
        tlv(127, 0x00, 0x80, 0xc2, 2, 0x06, 0, 20),
        tlv(127, 0x00, 0x12, 0xbb, 4, 0x51, 0, 130),
        tlv(127, 0x00, 0x00, 0x5e, 42, 1, 2, 3),
      ),
    );
    expect(f.orgSpecific.map((o) => o.decoded)).toEqual([
      { kind: 'dot1-vlan-name', vlanId: 10, name: 'prod' },
      { kind: 'dot1-protocol-vlan', supported: true, enabled: true, vlanId: 20 },
      { kind: 'med-power', powerType: 1, powerTypeName: 'PD', powerSource: 1, powerSourceName: 'PSE', priority: 1, priorityName: 'critical', powerMw: 13000 },
      undefined,
    ]);
    expect(f.orgSpecific[3]).toEqual({ oui: '00:00:5e', subtype: 42, value: new Uint8Array([1, 2, 3]) });
    expect(f.problems).toEqual([]);
  });

  it('an LLDP-MED civic address whose last element runs past its LCI keeps the elements before it', () => {
    // LCI length 13 claims: what, "US", city "Oslo" (2 + 4), building "42" (2 + 2); the TLV ends before "42".
    const f = parseLldpFrame(withTlvs(BASE, tlv(127, 0x00, 0x12, 0xbb, 3, 2, 13, 0, 0x55, 0x53, 3, 4, ...Buffer.from('Oslo'), 25, 2)));
    expect(findDecoded(f, 'med-location')?.civic).toEqual({ what: 0, country: 'US', elements: [{ type: 3, typeName: 'city', value: 'Oslo' }] });
    expect(f.problems).toEqual([
      expect.stringMatching(/^LLDP-MED Location Identification TLV at byte \d+: civic address LCI length 13 runs 2 bytes past the TLV$/),
      expect.stringMatching(/^LLDP-MED Location Identification TLV at byte \d+: civic address element at byte \d+ is cut off by the end of the LCI$/),
    ]);
  });
});

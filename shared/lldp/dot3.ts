/** IEEE 802.3 organizationally specific TLVs, OUI 00-12-0F (802.3-2018 clause 79). */
import type { ByteReader } from '../bytes/reader.js';
import { readLinkAggregation } from './dot1.js';
import { nameOf } from './names.js';
import type { Dot3MacPhy, Dot3Power, OrgDecoded } from './types.js';

export const DOT3_SUBTYPES: Readonly<Record<number, string>> = {
  1: 'MAC/PHY Configuration/Status',
  2: 'Power Via MDI',
  3: 'Link Aggregation',
  4: 'Maximum Frame Size',
  5: 'EEE',
  6: 'EEE Fast Wake',
  7: 'Additional Ethernet Capabilities',
  8: 'Power Via MDI Measurements',
};

/** ifMauAutoNegCapAdvertisedBits (RFC 4836): name i is the bit 0x8000 >> i. */
const AUTONEG_BITS = [
  'other',
  '10BASE-T',
  '10BASE-T FD',
  '100BASE-T4',
  '100BASE-TX',
  '100BASE-TX FD',
  '100BASE-T2',
  '100BASE-T2 FD',
  'FDX PAUSE',
  'FDX APAUSE',
  'FDX SPAUSE',
  'FDX BPAUSE',
  '1000BASE-X',
  '1000BASE-X FD',
  '1000BASE-T',
  '1000BASE-T FD',
];

/** dot3MauType (RFC 4836 IANA-MAU-MIB), 1-53. */
const MAU_TYPES = [
  'unknown',
  'AUI',
  '10Base5',
  'Foirl',
  '10Base2',
  '10BaseT',
  '10BaseFP',
  '10BaseFB',
  '10BaseFL',
  '10Broad36',
  '10BaseTHD',
  '10BaseTFD',
  '10BaseFLHD',
  '10BaseFLFD',
  '100BaseT4',
  '100BaseTXHD',
  '100BaseTXFD',
  '100BaseFXHD',
  '100BaseFXFD',
  '100BaseT2HD',
  '100BaseT2FD',
  '1000BaseXHD',
  '1000BaseXFD',
  '1000BaseLXHD',
  '1000BaseLXFD',
  '1000BaseSXHD',
  '1000BaseSXFD',
  '1000BaseCXHD',
  '1000BaseCXFD',
  '1000BaseTHD',
  '1000BaseTFD',
  '10GigBaseX',
  '10GigBaseLX4',
  '10GigBaseR',
  '10GigBaseER',
  '10GigBaseLR',
  '10GigBaseSR',
  '10GigBaseW',
  '10GigBaseEW',
  '10GigBaseLW',
  '10GigBaseSW',
  '10GigBaseCX4',
  '2BaseTL',
  '10PassTS',
  '100BaseBX10D',
  '100BaseBX10U',
  '100BaseLX10',
  '1000BaseBX10D',
  '1000BaseBX10U',
  '1000BaseLX10',
  '1000BasePX10D',
  '1000BasePX10U',
  '1000BasePX20D',
  '1000BasePX20U',
];

export function decodeDot3(subtype: number, r: ByteReader): OrgDecoded | undefined {
  switch (subtype) {
    case 1:
      return readMacPhy(r);
    case 2:
      return readPower(r);
    case 3:
      return readLinkAggregation(r);
    case 4: {
      const size = r.u16('maximum frame size');
      r.end('the maximum frame size');
      return { kind: 'dot3-max-frame-size', size };
    }
    default:
      return undefined;
  }
}

function readMacPhy(r: ByteReader): Dot3MacPhy {
  const autoneg = r.u8('auto-negotiation support/status');
  const advertised = r.u16('advertised capability');
  const mauType = r.u16('operational MAU type');
  r.end('the MAU type');
  return {
    kind: 'dot3-mac-phy',
    autonegSupported: (autoneg & 0x01) !== 0,
    autonegEnabled: (autoneg & 0x02) !== 0,
    advertised,
    advertisedNames: AUTONEG_BITS.filter((_, i) => advertised & (0x8000 >> i)),
    mauType,
    mauTypeName: MAU_TYPES[mauType] ?? `mauType(${mauType})`,
  };
}

const PAIRS: Record<number, string> = { 1: 'signal', 2: 'spare' };
const CLASSES: Record<number, string> = { 1: 'class 0', 2: 'class 1', 3: 'class 2', 4: 'class 3', 5: 'class 4' };
const PSE_SOURCES: Record<number, string> = { 0: 'unknown', 1: 'primary power source', 2: 'backup source' };
const PD_SOURCES: Record<number, string> = { 0: 'unknown', 1: 'PSE', 3: 'PSE and local' };
export const POWER_PRIORITIES: Record<number, string> = { 0: 'unknown', 1: 'critical', 2: 'high', 3: 'low' };
// 802.3bt (79.3.2.6e-79.3.2.6g): the extended status, system setup and classification fields.
const PSE_STATUS: Record<number, string> = {
  0: 'unknown',
  1: '2-pair powering',
  2: '4-pair powering single-signature PD',
  3: '4-pair powering dual-signature PD',
};
const PD_STATUS: Record<number, string> = {
  0: 'unknown',
  1: 'powered single-signature PD',
  2: '2-pair powered dual-signature PD',
  3: '4-pair powered dual-signature PD',
};
const PAIRS_EXT: Record<number, string> = { 0: 'unknown', 1: 'alternative A', 2: 'alternative B', 3: 'both alternatives' };
const CLASS_EXT_AB: Record<number, string> = {
  0: 'unknown',
  1: 'class 1',
  2: 'class 2',
  3: 'class 3',
  4: 'class 4',
  5: 'class 5',
  7: 'single-signature PD or 2-pair only PSE',
};
const CLASS_EXT: Record<number, string> = {
  0: 'unknown',
  1: 'class 1',
  2: 'class 2',
  3: 'class 3',
  4: 'class 4',
  5: 'class 5',
  6: 'class 6',
  7: 'class 7',
  8: 'class 8',
  15: 'dual-signature PD',
};
const TYPE_EXT: Record<number, string> = {
  0: 'type 3 PSE',
  1: 'type 4 PSE',
  2: 'type 3 single-signature PD',
  3: 'type 3 dual-signature PD',
  4: 'type 4 single-signature PD',
  5: 'type 4 dual-signature PD',
};

/** Power via MDI: 3 bytes (802.3af), 8 (802.3at adds type, source, priority, powers) or 25 (802.3bt). */
function readPower(r: ByteReader): Dot3Power {
  const length = r.remaining;
  if (length !== 3 && length !== 8 && length !== 25) r.fail(`has ${length} bytes of power data; 802.3 defines 3, 8 or 25`);
  const support = r.u8('MDI power support');
  const psePowerPairs = r.u8('PSE power pair');
  const powerClass = r.u8('power class');
  const power: Dot3Power = {
    kind: 'dot3-power',
    portClass: support & 0x01 ? 'PSE' : 'PD',
    pseSupported: (support & 0x02) !== 0,
    pseEnabled: (support & 0x04) !== 0,
    pairControl: (support & 0x08) !== 0,
    psePowerPairs,
    psePowerPairsName: nameOf(PAIRS, psePowerPairs),
    powerClass,
    powerClassName: nameOf(CLASSES, powerClass),
  };
  if (length === 3) return power;

  const tsp = r.u8('power type/source/priority');
  const deviceType = tsp & 0x40 ? 'PD' : 'PSE';
  const powerSource = (tsp >> 4) & 0x03;
  power.at = {
    powerType: tsp & 0x80 ? 1 : 2,
    deviceType,
    powerSource,
    powerSourceName: nameOf(deviceType === 'PSE' ? PSE_SOURCES : PD_SOURCES, powerSource),
    pd4pid: (tsp & 0x04) !== 0,
    priority: tsp & 0x03,
    priorityName: nameOf(POWER_PRIORITIES, tsp & 0x03),
    // Powers travel in units of 0.1 W.
    requestedMw: r.u16('PD requested power') * 100,
    allocatedMw: r.u16('PSE allocated power') * 100,
  };
  if (length === 8) return power;

  const requestedAMw = r.u16('requested power A') * 100;
  const requestedBMw = r.u16('requested power B') * 100;
  const allocatedAMw = r.u16('allocated power A') * 100;
  const allocatedBMw = r.u16('allocated power B') * 100;
  const status = r.u16('power status');
  const setup = r.u8('system setup');
  const pseMaxAvailableMw = r.u16('PSE maximum available power') * 100;
  const autoclass = r.u8('autoclass');
  const powerDown = (r.u8('power down') << 16) | r.u16('power down');
  const pseStatus = status >> 14;
  const pdStatus = (status >> 12) & 0x3;
  const psePairsExt = (status >> 10) & 0x3;
  const classExtA = (status >> 7) & 0x7;
  const classExtB = (status >> 4) & 0x7;
  const classExt = status & 0xf;
  const powerTypeExt = (setup >> 1) & 0x7;
  const pdLoadIsolated = (setup & 0x01) !== 0;
  power.bt = {
    requestedAMw,
    requestedBMw,
    allocatedAMw,
    allocatedBMw,
    pseStatus,
    pseStatusName: nameOf(PSE_STATUS, pseStatus),
    pdStatus,
    pdStatusName: nameOf(PD_STATUS, pdStatus),
    psePairsExt,
    psePairsExtName: nameOf(PAIRS_EXT, psePairsExt),
    classExtA,
    classExtAName: nameOf(CLASS_EXT_AB, classExtA),
    classExtB,
    classExtBName: nameOf(CLASS_EXT_AB, classExtB),
    classExt,
    classExtName: nameOf(CLASS_EXT, classExt),
    powerTypeExt,
    powerTypeExtName: nameOf(TYPE_EXT, powerTypeExt),
    pdLoadIsolated,
    pdLoadName: pdLoadIsolated
      ? 'PD is dual-signature and power is electrically isolated'
      : 'PD is single- or dual-signature and power is not electrically isolated',
    pseMaxAvailableMw,
    autoclass,
    powerDown,
  };
  return power;
}

/** LLDP-MED organizationally specific TLVs, OUI 00-12-BB (ANSI/TIA-1057). */
import type { ByteReader } from '../bytes/reader.js';
import { POWER_PRIORITIES } from './dot3.js';
import { bitNames, nameOf } from './names.js';
import { decodeCString, decodeText } from './text.js';
import type { CivicAddress, MedInventoryField, OrgDecoded } from './types.js';

export const MED_SUBTYPES: Readonly<Record<number, string>> = {
  1: 'Capabilities',
  2: 'Network Policy',
  3: 'Location Identification',
  4: 'Extended Power-via-MDI',
  5: 'Hardware Revision',
  6: 'Firmware Revision',
  7: 'Software Revision',
  8: 'Serial Number',
  9: 'Manufacturer Name',
  10: 'Model Name',
  11: 'Asset ID',
};

const CAPABILITIES = ['capabilities', 'networkPolicy', 'location', 'extendedPowerPse', 'extendedPowerPd', 'inventory'];
const DEVICE_TYPES: Record<number, string> = {
  0: 'Not Defined',
  1: 'Generic Endpoint (Class I)',
  2: 'Media Endpoint (Class II)',
  3: 'Communication Device Endpoint (Class III)',
  4: 'Network Connectivity Device',
};
const APP_TYPES: Record<number, string> = {
  1: 'Voice',
  2: 'Voice Signaling',
  3: 'Guest Voice',
  4: 'Guest Voice Signaling',
  5: 'Softphone Voice',
  6: 'Video Conferencing',
  7: 'Streaming Video',
  8: 'Video Signaling',
};
/** 802.1Q traffic types by priority code point (802.1Q-2014 Table I-2). */
const PCP_NAMES = ['Best effort', 'Background', 'Excellent effort', 'Critical applications', 'Video', 'Voice', 'Internetwork control', 'Network control'];
const LOCATION_FORMATS: Record<number, string> = { 1: 'coordinate', 2: 'civic', 3: 'elin' };
/** Civic address types (RFC 4776 3.4, RFC 5139). */
const CIVIC_TYPES: Record<number, string> = {
  0: 'language',
  1: 'state',
  2: 'county',
  3: 'city',
  4: 'cityDivision',
  5: 'neighborhood',
  6: 'street',
  16: 'leadingStreetDirection',
  17: 'trailingStreetSuffix',
  18: 'streetSuffix',
  19: 'houseNumber',
  20: 'houseNumberSuffix',
  21: 'landmark',
  22: 'additionalLocation',
  23: 'name',
  24: 'postalCode',
  25: 'building',
  26: 'unit',
  27: 'floor',
  28: 'room',
  29: 'placeType',
  30: 'postalCommunity',
  31: 'poBox',
  32: 'additionalCode',
  33: 'seat',
  34: 'primaryRoad',
  35: 'roadSection',
  36: 'roadBranch',
  37: 'roadSubBranch',
  38: 'streetPreModifier',
  39: 'streetPostModifier',
  128: 'script',
};
const MED_POWER_TYPES: Record<number, string> = { 0: 'PSE', 1: 'PD' };
const MED_PSE_SOURCES: Record<number, string> = { 0: 'unknown', 1: 'primary power source', 2: 'backup power source' };
const MED_PD_SOURCES: Record<number, string> = { 0: 'unknown', 1: 'PSE', 2: 'local', 3: 'PSE and local' };
const INVENTORY: Record<number, MedInventoryField> = {
  5: 'hardwareRevision',
  6: 'firmwareRevision',
  7: 'softwareRevision',
  8: 'serialNumber',
  9: 'manufacturer',
  10: 'model',
  11: 'assetId',
};

/** `note` records a leniency (the TLV still decodes) in the frame's problems. */
export function decodeMed(subtype: number, r: ByteReader, note: (problem: string) => void): OrgDecoded | undefined {
  switch (subtype) {
    case 1: {
      const capabilities = r.u16('capabilities');
      const deviceType = r.u8('device type');
      r.end('the device type');
      return {
        kind: 'med-capabilities',
        capabilities,
        capabilityNames: bitNames(capabilities, CAPABILITIES),
        deviceType,
        deviceTypeName: nameOf(DEVICE_TYPES, deviceType),
      };
    }
    case 2: {
      const policy = r.u32('network policy');
      r.end('the network policy');
      const appType = policy >>> 24;
      const priority = (policy >> 6) & 0x7;
      return {
        kind: 'med-network-policy',
        appType,
        appTypeName: nameOf(APP_TYPES, appType),
        defined: (policy & 0x800000) === 0,
        tagged: (policy & 0x400000) !== 0,
        vlanId: (policy >> 9) & 0xfff,
        priority,
        priorityName: PCP_NAMES[priority]!,
        dscp: policy & 0x3f,
      };
    }
    case 3: {
      const format = r.u8('location data format');
      const data = r.buf.slice(r.offset);
      const location = { kind: 'med-location', format, formatName: nameOf(LOCATION_FORMATS, format), data } as const;
      if (format === 2) return { ...location, civic: readCivic(r, note) };
      if (format === 3) return { ...location, elin: decodeText(r.bytes(r.remaining, 'ELIN')) };
      return location;
    }
    case 4: {
      const tsp = r.u8('power type/source/priority');
      const powerMw = r.u16('power value') * 100;
      r.end('the power value');
      const powerType = tsp >> 6;
      const powerSource = (tsp >> 4) & 0x3;
      const priority = tsp & 0xf;
      const sources = powerType === 0 ? MED_PSE_SOURCES : powerType === 1 ? MED_PD_SOURCES : {};
      return {
        kind: 'med-power',
        powerType,
        powerTypeName: nameOf(MED_POWER_TYPES, powerType),
        powerSource,
        powerSourceName: nameOf(sources, powerSource),
        priority,
        priorityName: nameOf(POWER_PRIORITIES, priority),
        powerMw,
      };
    }
    default: {
      const field = INVENTORY[subtype];
      if (field === undefined) return undefined;
      // Senders fill a fixed 32-byte field: the string ends at its NUL, stale buffer bytes may follow.
      return { kind: 'med-inventory', field, value: decodeCString(r.bytes(r.remaining, 'inventory string')) };
    }
  }
}

/**
 * A civic address LCI: length, what, country code, then type-length-value elements. Read as lldpd
 * does: the country even when the LCI length is too short to hold it (noted), and bytes after the
 * LCI ignored (switches pad the TLV with zeros).
 */
function readCivic(r: ByteReader, note: (problem: string) => void): CivicAddress {
  const start = r.offset;
  const lciLength = r.u8('civic LCI length');
  const what = r.u8('civic what');
  const country = decodeText(r.bytes(2, 'civic country code'));
  const civic: CivicAddress = { what, country, elements: [] };
  if (lciLength < 3) {
    note(`civic address LCI length ${lciLength} is too short for its what and country code (3 bytes); no address elements`);
    return civic;
  }
  let end = start + 1 + lciLength;
  if (end > r.buf.length) {
    note(`civic address LCI length ${lciLength} runs ${end - r.buf.length} bytes past the TLV`);
    end = r.buf.length;
  }
  while (r.offset < end) {
    const at = r.offset;
    if (end - at < 2 || r.buf[at + 1]! > end - at - 2) {
      note(`civic address element at byte ${at} is cut off by the end of the LCI`);
      break;
    }
    const type = r.u8('civic element type');
    const value = decodeText(r.bytes(r.u8('civic element length'), 'civic element'));
    civic.elements.push({ type, typeName: nameOf(CIVIC_TYPES, type, 'caType'), value });
  }
  return civic;
}

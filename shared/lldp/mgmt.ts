/** The Management Address TLV (802.1AB-2016 8.5.9) and the System Capabilities TLV (8.5.8). */
import type { ByteReader } from '../bytes/reader.js';
import { toHex } from '../bytes/hex.js';
import { ADDRESS_FAMILIES, INTERFACE_SUBTYPES, SYSTEM_CAPABILITIES, bitNames, nameOf } from './names.js';
import { colonHex, formatAddress } from './text.js';
import type { ManagementAddress, SystemCapabilities } from './types.js';

export function readManagementAddress(r: ByteReader): ManagementAddress {
  const stringLength = r.u8('address string length');
  // The string holds the family byte and 1-31 address bytes.
  if (stringLength < 2 || stringLength > 32) r.fail(`address string length ${stringLength} is outside 2-32`);
  const family = r.u8('address family');
  const addr = r.bytes(stringLength - 1, 'address');
  const formatted = formatAddress(family, addr);
  if (formatted === undefined && ADDRESS_FAMILIES[family] !== undefined) {
    r.fail(`a ${ADDRESS_FAMILIES[family]} address cannot be ${addr.length} bytes`);
  }
  const interfaceSubtype = r.u8('interface numbering subtype');
  const interfaceNumber = r.u32('interface number');
  const oidLength = r.u8('OID length');
  if (oidLength > 128) r.fail(`OID length ${oidLength} exceeds 128`);
  const oid = r.bytes(oidLength, 'OID');
  r.end('the OID');
  return {
    family,
    familyName: nameOf(ADDRESS_FAMILIES, family, 'family'),
    address: formatted ?? colonHex(addr),
    interfaceSubtype,
    interfaceSubtypeName: nameOf(INTERFACE_SUBTYPES, interfaceSubtype),
    interfaceNumber,
    oidHex: toHex(oid),
  };
}

export function readSystemCapabilities(r: ByteReader): SystemCapabilities {
  const available = r.u16('available capabilities');
  const enabled = r.u16('enabled capabilities');
  r.end('the capabilities');
  return { available, enabled, availableNames: bitNames(available, SYSTEM_CAPABILITIES), enabledNames: bitNames(enabled, SYSTEM_CAPABILITIES) };
}

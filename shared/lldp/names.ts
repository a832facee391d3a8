/**
 * Names for the numbers in the basic LLDP TLVs, from IEEE 802.1AB-2016 (clause 8) and the IANA
 * address family registry. Each name is short and stable: it appears in `fleet lldp --json`.
 */

/**
 * Chassis ID subtypes (802.1AB-2016 Table 8-2; LLDP-MIB LldpChassisIdSubtype in parentheses):
 * 1 chassisComponent, 2 ifAlias (interfaceAlias), 3 portComponent, 4 mac (macAddress),
 * 5 networkAddress, 6 ifName (interfaceName), 7 local. 0 and 8-255 are reserved.
 */
export const CHASSIS_ID_SUBTYPES: Readonly<Record<number, string>> = {
  1: 'chassisComponent',
  2: 'ifAlias',
  3: 'portComponent',
  4: 'mac',
  5: 'networkAddress',
  6: 'ifName',
  7: 'local',
};

/**
 * Port ID subtypes (802.1AB-2016 Table 8-3; LLDP-MIB LldpPortIdSubtype in parentheses):
 * 1 ifAlias (interfaceAlias), 2 portComponent, 3 mac (macAddress), 4 networkAddress,
 * 5 ifName (interfaceName), 6 agentCircuitId, 7 local. 0 and 8-255 are reserved.
 */
export const PORT_ID_SUBTYPES: Readonly<Record<number, string>> = {
  1: 'ifAlias',
  2: 'portComponent',
  3: 'mac',
  4: 'networkAddress',
  5: 'ifName',
  6: 'agentCircuitId',
  7: 'local',
};

/** System capabilities, bit 0 (the least significant) first (802.1AB-2016 Table 8-4). */
export const SYSTEM_CAPABILITIES = [
  'other',
  'repeater',
  'bridge',
  'wlanAccessPoint',
  'router',
  'telephone',
  'docsis',
  'station',
  'cVlan',
  'sVlan',
  'tpmr',
] as const;

/** The IANA address families LLDP uses in network-address IDs and management addresses. */
export const ADDRESS_FAMILIES: Readonly<Record<number, string>> = { 1: 'ipv4', 2: 'ipv6', 6: 'all802' };

/** Management address interface numbering subtypes (802.1AB-2016 8.5.9.5). */
export const INTERFACE_SUBTYPES: Readonly<Record<number, string>> = { 1: 'unknown', 2: 'ifIndex', 3: 'systemPortNumber' };

/** The basic TLV types (802.1AB-2016 Table 8-1). */
export const TLV = {
  end: 0,
  chassisId: 1,
  portId: 2,
  ttl: 3,
  portDescription: 4,
  systemName: 5,
  systemDescription: 6,
  systemCapabilities: 7,
  managementAddress: 8,
  orgSpecific: 127,
} as const;

export const TLV_NAMES: Readonly<Record<number, string>> = {
  0: 'End',
  1: 'Chassis ID',
  2: 'Port ID',
  3: 'Time To Live',
  4: 'Port Description',
  5: 'System Name',
  6: 'System Description',
  7: 'System Capabilities',
  8: 'Management Address',
  127: 'Organizationally Specific',
};

/** `table[n]`, or a name that still says which number it was. */
export function nameOf(table: Readonly<Record<number, string>>, n: number, fallback = 'reserved'): string {
  return table[n] ?? `${fallback}(${n})`;
}

/** The names of the bits set in `bits`, bit 0 first. */
export function bitNames(bits: number, names: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < 16; i++) if (bits & (1 << i)) out.push(names[i] ?? `bit${i}`);
  return out;
}

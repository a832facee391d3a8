import { toHex } from '../bytes/hex.js';
import { type Tlv, value } from '../ek-cert/der.js';
import { malformed, oid, sequence, TAGS } from './fields.js';

/** What a component is, by a registry's class value (ComponentClass of ComponentIdentifier-v2). */
export interface ComponentClass {
  /** The registry's OID. */
  registry: string;
  registryName: 'TCG' | 'SMBIOS' | 'PCIe' | 'storage' | null;
  /** The four-byte class value, 8 hex digits. */
  value: string;
  /** The category the registry gives the value's upper half (TCG Containers, SMBIOS Chassis, ...), when fleet knows it. */
  category: string | null;
  /** Whether the component is the platform's chassis or its baseboard, whose serials identify the machine. */
  role: 'chassis' | 'baseboard' | null;
}

const REGISTRIES = {
  '2.23.133.18.3.1': 'TCG',
  '2.23.133.18.3.3': 'SMBIOS',
  '2.23.133.18.3.4': 'PCIe',
  '2.23.133.18.3.5': 'storage',
} as const satisfies Record<string, ComponentClass['registryName']>;

/** The TCG Component Class Registry's categories, by the value's upper 16 bits. */
const TCG_CATEGORIES = [
  null,
  'Processors',
  'Containers',
  'IC Boards',
  'Modules',
  'Controllers',
  'Memory',
  'Storage',
  'Media Drives',
  'Network Adapters',
  'Energy Object',
  'Sensors',
  'Display Devices',
  'Cooling',
  'Input Devices',
  'Slots',
  'Ports',
  'Discrete Component',
  'Cabling',
  'Firmware',
];
const TCG_CONTAINERS = 0x0002;
const TCG_MOTHERBOARD = 0x00030003;

/** The SMBIOS Component Class Registry's categories: the SMBIOS structure type, in the value's upper 16 bits. */
const SMBIOS_CATEGORIES: Record<number, string> = {
  0: 'BIOS',
  1: 'System',
  2: 'Baseboard',
  3: 'Chassis',
  4: 'Processor',
  17: 'RAM',
  39: 'Power Supply',
  43: 'TPM',
};
const SMBIOS_BASEBOARD = 2;
const SMBIOS_CHASSIS = 3;

/** ComponentClass ::= SEQUENCE { componentClassRegistry OBJECT IDENTIFIER, componentClassValue OCTET STRING (SIZE(4)) }. */
export function componentClass(der: Uint8Array, t: Tlv, what: string): ComponentClass {
  const [registryField, valueField, ...rest] = sequence(der, t, what);
  if (!registryField || valueField?.tag !== TAGS.octetString || rest.length > 0) throw malformed(`${what} is not { registry, value }`, t.start);
  const registry = oid(der, registryField, `${what}'s registry`);
  const bytes = value(der, valueField);
  if (bytes.length !== 4) throw malformed(`${what}'s value is ${bytes.length} bytes, not 4`, valueField.start);
  const n = Buffer.from(bytes).readUInt32BE(0);
  const registryName = (REGISTRIES as Record<string, ComponentClass['registryName']>)[registry] ?? null;
  const upper = n >>> 16;
  const category = registryName === 'TCG' ? (TCG_CATEGORIES[upper] ?? null) : registryName === 'SMBIOS' ? (SMBIOS_CATEGORIES[upper] ?? null) : null;
  let role: ComponentClass['role'] = null;
  if (registryName === 'TCG') role = upper === TCG_CONTAINERS ? 'chassis' : n === TCG_MOTHERBOARD ? 'baseboard' : null;
  if (registryName === 'SMBIOS') role = upper === SMBIOS_CHASSIS ? 'chassis' : upper === SMBIOS_BASEBOARD ? 'baseboard' : null;
  return { registry, registryName, value: toHex(bytes), category, role };
}

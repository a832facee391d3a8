/** The decoded shape of an LLDP frame (IEEE 802.1AB-2016). Numbers are kept beside their names. */

/** A Chassis ID or Port ID: the subtype says how to read `value`. */
export interface LldpId {
  subtype: number;
  /** See names.ts: `mac`, `ifName`, `local`, `networkAddress`, ... */
  subtypeName: string;
  /** Text for the text subtypes, `aa:bb:..` for MACs and binary values, dotted/colon form for IP addresses. */
  value: string;
}

export interface EthernetHeader {
  destination: string;
  source: string;
  /** VLAN IDs of the 802.1Q / 802.1ad tags in front of the LLDPDU, outermost first (usually none). */
  vlanIds: number[];
}

export interface SystemCapabilities {
  available: number;
  enabled: number;
  availableNames: string[];
  enabledNames: string[];
}

export interface ManagementAddress {
  /** IANA address family: 1 IPv4, 2 IPv6, 6 802 (MAC). */
  family: number;
  familyName: string;
  address: string;
  interfaceSubtype: number;
  interfaceSubtypeName: string;
  interfaceNumber: number;
  /** The object identifier, BER-encoded, as hex; empty when none. */
  oidHex: string;
}

/** An organizationally specific TLV (type 127), always kept raw, decoded when fleet knows it. */
export interface OrgSpecificTlv {
  /** `00:12:0f` */
  oui: string;
  /** `802.1`, `802.3`, `LLDP-MED` for the standard OUIs. */
  ouiName?: string;
  subtype: number;
  subtypeName?: string;
  /** The information string after OUI and subtype (a copy). */
  value: Uint8Array;
  decoded?: OrgDecoded;
}

export type OrgDecoded =
  | Dot1PortVlan
  | Dot1ProtocolVlan
  | Dot1VlanName
  | LinkAggregation
  | Dot3MacPhy
  | Dot3Power
  | Dot3MaxFrameSize
  | MedCapabilities
  | MedNetworkPolicy
  | MedLocation
  | MedPower
  | MedInventory;

export interface Dot1PortVlan {
  kind: 'dot1-port-vlan';
  /** The port's untagged VLAN; 0 when the port is not VLAN-aware. */
  vlanId: number;
}

export interface Dot1ProtocolVlan {
  kind: 'dot1-protocol-vlan';
  supported: boolean;
  enabled: boolean;
  vlanId: number;
}

export interface Dot1VlanName {
  kind: 'dot1-vlan-name';
  vlanId: number;
  name: string;
}

/** 802.1 subtype 7, or the deprecated 802.3 subtype 3 it replaced. */
export interface LinkAggregation {
  kind: 'link-aggregation';
  capable: boolean;
  aggregated: boolean;
  aggregatedPortId: number;
}

export interface Dot3MacPhy {
  kind: 'dot3-mac-phy';
  autonegSupported: boolean;
  autonegEnabled: boolean;
  /** ifMauAutoNegCapAdvertisedBits (RFC 4836): the first bit is the most significant. */
  advertised: number;
  advertisedNames: string[];
  /** dot3MauType (RFC 4836); 0 when unknown. */
  mauType: number;
  mauTypeName: string;
}

export interface Dot3Power {
  kind: 'dot3-power';
  portClass: 'PSE' | 'PD';
  pseSupported: boolean;
  pseEnabled: boolean;
  pairControl: boolean;
  psePowerPairs: number;
  psePowerPairsName: string;
  /** As sent: 1-5 are classes 0-4. */
  powerClass: number;
  powerClassName: string;
  /** 802.3at fields, when the TLV carries them. */
  at?: {
    /** 1 or 2 */
    powerType: number;
    deviceType: 'PSE' | 'PD';
    powerSource: number;
    powerSourceName: string;
    pd4pid: boolean;
    priority: number;
    priorityName: string;
    requestedMw: number;
    allocatedMw: number;
  };
  /** 802.3bt fields, when the TLV carries them. */
  bt?: {
    requestedAMw: number;
    requestedBMw: number;
    allocatedAMw: number;
    allocatedBMw: number;
    pseStatus: number;
    pseStatusName: string;
    pdStatus: number;
    pdStatusName: string;
    psePairsExt: number;
    psePairsExtName: string;
    classExtA: number;
    classExtAName: string;
    classExtB: number;
    classExtBName: string;
    classExt: number;
    classExtName: string;
    powerTypeExt: number;
    powerTypeExtName: string;
    pdLoadIsolated: boolean;
    pdLoadName: string;
    pseMaxAvailableMw: number;
    autoclass: number;
    powerDown: number;
  };
}

export interface Dot3MaxFrameSize {
  kind: 'dot3-max-frame-size';
  size: number;
}

export interface MedCapabilities {
  kind: 'med-capabilities';
  capabilities: number;
  capabilityNames: string[];
  deviceType: number;
  deviceTypeName: string;
}

export interface MedNetworkPolicy {
  kind: 'med-network-policy';
  appType: number;
  appTypeName: string;
  /** The U flag clear: the sender knows this application's policy. */
  defined: boolean;
  tagged: boolean;
  vlanId: number;
  /** 802.1p priority code point. */
  priority: number;
  priorityName: string;
  dscp: number;
}

export interface CivicAddress {
  what: number;
  country: string;
  elements: { type: number; typeName: string; value: string }[];
}

export interface MedLocation {
  kind: 'med-location';
  format: number;
  formatName: string;
  civic?: CivicAddress;
  elin?: string;
  /** The location data after the format byte (a copy). */
  data: Uint8Array;
}

export interface MedPower {
  kind: 'med-power';
  powerType: number;
  powerTypeName: string;
  powerSource: number;
  powerSourceName: string;
  priority: number;
  priorityName: string;
  powerMw: number;
}

export type MedInventoryField = 'hardwareRevision' | 'firmwareRevision' | 'softwareRevision' | 'serialNumber' | 'manufacturer' | 'model' | 'assetId';

export interface MedInventory {
  kind: 'med-inventory';
  field: MedInventoryField;
  value: string;
}

export interface LldpFrame {
  /** Absent when an LLDPDU alone was parsed. */
  ethernet?: EthernetHeader;
  chassisId: LldpId;
  portId: LldpId;
  /** Seconds; 0 announces that the neighbour is leaving. */
  ttl: number;
  portDescription?: string;
  systemName?: string;
  systemDescription?: string;
  systemCapabilities?: SystemCapabilities;
  managementAddresses: ManagementAddress[];
  orgSpecific: OrgSpecificTlv[];
  /** Damaged or odd optional parts that were skipped or read leniently, one sentence each. */
  problems: string[];
}

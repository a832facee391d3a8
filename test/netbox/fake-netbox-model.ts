/**
 * The fake NetBox's objects and how NetBox 4.6 serializes them. Field lists and orders follow
 * NetBox's serializers (dcim/api/serializers_/devices.py, device_components.py, cables.py,
 * core/api/serializers_/change_logging.py, extras/api/serializers_/journaling.py); brief (nested)
 * objects follow each serializer's `brief_fields`. Models fleet does not touch (site, role, device
 * type, …) are fixed stand-ins so the nested objects have their real shape.
 */

export type CustomFieldType = 'text' | 'select' | 'boolean' | 'integer';

export interface CustomFieldDef {
  name: string;
  type: CustomFieldType;
  /** select only. */
  choices?: readonly string[];
  /** select only: the choice set's name, as NetBox puts it in its error message. */
  choiceSet?: string;
  /** NetBox's default is "loose": text filters match substrings (icontains). */
  filterLogic?: 'loose' | 'exact' | 'disabled';
}

const text = (name: string): CustomFieldDef => ({ name, type: 'text' });

/** The custom fields fleet defines on dcim.device. */
export const FLEET_CUSTOM_FIELDS: readonly CustomFieldDef[] = [
  { name: 'desired_action', type: 'select', choices: ['provision', 'retire'], choiceSet: 'Fleet desired actions' },
  text('class'),
  text('install_disk'),
  text('install_disk_serial'),
  text('approved_ek_hash'),
  text('approved_ek_hash_ecc'),
  text('attest_verdict'),
  text('attested_at'),
  text('attested_ek_hash'),
  text('attested_ek_hash_ecc'),
  text('attested_mac'),
  text('attested_switch_port'),
  text('attested_boot_id'),
  { name: 'attested_secure_boot', type: 'boolean' },
  text('last_run'),
  text('bmc_type'),
];

/** dcim/choices.py */
export const DEVICE_STATUS_LABELS: Record<string, string> = {
  offline: 'Offline',
  active: 'Active',
  planned: 'Planned',
  staged: 'Staged',
  failed: 'Failed',
  inventory: 'Inventory',
  decommissioning: 'Decommissioning',
};
/** dcim/choices.py LinkStatusChoices */
export const CABLE_STATUS_LABELS: Record<string, string> = {
  connected: 'Connected',
  planned: 'Planned',
  decommissioning: 'Decommissioning',
};
/** extras/choices.py JournalEntryKindChoices */
export const JOURNAL_KIND_LABELS: Record<string, string> = { info: 'Info', success: 'Success', warning: 'Warning', danger: 'Danger' };
/** core/choices.py ObjectChangeActionChoices */
export const CHANGE_ACTION_LABELS: Record<string, string> = { create: 'Created', update: 'Updated', delete: 'Deleted' };
/** A few of dcim/choices.py InterfaceTypeChoices. */
export const INTERFACE_TYPE_LABELS: Record<string, string> = {
  virtual: 'Virtual',
  '1000base-t': '1000BASE-T (1GE)',
  '10gbase-t': '10GBASE-T (10GE)',
  '10gbase-x-sfpp': 'SFP+ (10GE)',
  '25gbase-x-sfp28': 'SFP28 (25GE)',
};

export interface UserRec {
  id: number;
  username: string;
  password: string;
}

export interface TokenRec {
  id: number;
  version: 1 | 2;
  /** v2: the 12-character key that precedes the secret. v1: null. */
  key: string | null;
  /** v1: the whole token; v2: the secret after the dot. */
  secret: string;
  userId: number;
  writeEnabled: boolean;
  enabled: boolean;
  expires: string | null;
  description: string;
  created: string;
}

export interface DeviceRec {
  id: number;
  name: string;
  serial: string;
  status: string;
  role: 'server' | 'switch';
  asset_tag: string | null;
  primary_ip4: number | null;
  description: string;
  comments: string;
  custom_field_data: Record<string, unknown>;
  created: string;
  last_updated: string;
}

export interface IpRec {
  id: number;
  address: string;
  dns_name: string;
  description: string;
}

export interface InterfaceRec {
  id: number;
  device: number;
  name: string;
  label: string;
  type: string;
  enabled: boolean;
  mgmt_only: boolean;
  mark_connected: boolean;
  cable: number | null;
  cable_end: '' | 'A' | 'B';
  primary_mac_address: number | null;
  description: string;
  created: string;
  last_updated: string;
}

export interface MacRec {
  id: number;
  mac_address: string;
  assigned_object_type: string | null;
  assigned_object_id: number | null;
  description: string;
  comments: string;
  created: string;
  last_updated: string;
}

export interface CableRec {
  id: number;
  a: number[];
  b: number[];
  status: string;
  label: string;
  description: string;
  comments: string;
  created: string;
  last_updated: string;
}

export interface JournalRec {
  id: number;
  assigned_object_type: string;
  assigned_object_id: number;
  created_by: number | null;
  kind: string;
  comments: string;
  created: string;
  last_updated: string;
}

export interface ChangeRec {
  id: number;
  time: string;
  /** For ordering: microseconds since the epoch. */
  micros: number;
  user: number | null;
  user_name: string;
  request_id: string;
  action: 'create' | 'update' | 'delete';
  changed_object_type: string;
  changed_object_id: number;
  related_object_type: string | null;
  related_object_id: number | null;
  object_repr: string;
  message: string;
  prechange_data: Record<string, unknown> | null;
  postchange_data: Record<string, unknown> | null;
}

/** Microsecond timestamps, strictly increasing, rendered as DRF renders a UTC datetime. */
export class MicroClock {
  #last = 0;
  constructor(private readonly nowMs: () => number = Date.now) {}
  tick(): { iso: string; micros: number } {
    const micros = Math.max(Math.floor(this.nowMs()) * 1000, this.#last + 1);
    this.#last = micros;
    return { iso: renderMicros(micros), micros };
  }
}

/** `2025-04-29T15:44:47.597092Z` (Python's isoformat, `+00:00` → `Z`; no fraction when it is zero). */
function renderMicros(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const frac = micros % 1_000_000;
  const base = new Date(ms).toISOString().slice(0, 19);
  return frac === 0 ? `${base}Z` : `${base}.${String(frac).padStart(6, '0')}Z`;
}

export function parseIsoMicros(value: string): number | null {
  const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(value.trim());
  if (!m) return null;
  const zone = m[5] === undefined || m[5] === 'Z' ? 'Z' : m[5].length === 5 ? `${m[5].slice(0, 3)}:${m[5].slice(3)}` : m[5];
  const ms = Date.parse(`${m[1]}T${m[2] ?? '00:00'}:${m[3] ?? '00'}${zone}`);
  if (Number.isNaN(ms)) return null;
  return ms * 1000 + Number((m[4] ?? '').padEnd(6, '0'));
}

/** netaddr's mac_unix_expanded_uppercase, which NetBox's MACAddressField uses: `AA:BB:CC:DD:EE:FF`. */
export function normalizeMac(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const hex = value.replace(/[^0-9a-fA-F]/g, '');
  const plausible =
    /^[0-9a-fA-F]{2}([:.-]?)[0-9a-fA-F]{2}(\1[0-9a-fA-F]{2}){4}$/.test(value.trim()) || /^[0-9a-fA-F]{4}\.[0-9a-fA-F]{4}\.[0-9a-fA-F]{4}$/.test(value.trim());
  if (!plausible || hex.length !== 12) return null;
  return hex.toUpperCase().match(/../g)!.join(':');
}

/** Fixed stand-ins for the models fleet does not manage. */
const SITE = { id: 1, name: 'Lab', slug: 'lab' };
const MANUFACTURER = { id: 1, name: 'Generic', slug: 'generic' };
const DEVICE_TYPES = {
  server: { id: 1, model: 'Server', slug: 'server' },
  switch: { id: 2, model: 'Switch', slug: 'switch' },
};
const ROLES = {
  server: { id: 1, name: 'Server', slug: 'server' },
  switch: { id: 2, name: 'Switch', slug: 'switch' },
};

export class FakeNetBoxModel {
  readonly users = new Map<number, UserRec>();
  readonly tokens = new Map<number, TokenRec>();
  readonly devices = new Map<number, DeviceRec>();
  readonly ips = new Map<number, IpRec>();
  readonly interfaces = new Map<number, InterfaceRec>();
  readonly macs = new Map<number, MacRec>();
  readonly cables = new Map<number, CableRec>();
  readonly journal = new Map<number, JournalRec>();
  readonly changes = new Map<number, ChangeRec>();
  readonly customFields: Map<string, CustomFieldDef>;
  readonly clock: MicroClock;
  /** The NetBox version served (`4.5.10`): a few nested shapes differ between 4.5 and 4.6. */
  netboxVersion = '4.6.8';
  #ids = new Map<string, number>();

  constructor(customFields: readonly CustomFieldDef[], clock: MicroClock) {
    this.customFields = new Map(customFields.map((cf) => [cf.name, cf]));
    this.clock = clock;
  }

  nextId(kind: string): number {
    const id = (this.#ids.get(kind) ?? 0) + 1;
    this.#ids.set(kind, id);
    return id;
  }

  // ---- urls --------------------------------------------------------------------------------------

  static apiPath: Record<string, string> = {
    'dcim.device': 'dcim/devices',
    'dcim.interface': 'dcim/interfaces',
    'dcim.macaddress': 'dcim/mac-addresses',
    'dcim.cable': 'dcim/cables',
    'ipam.ipaddress': 'ipam/ip-addresses',
    'extras.journalentry': 'extras/journal-entries',
    'core.objectchange': 'core/object-changes',
    'users.user': 'users/users',
    'users.token': 'users/tokens',
  };
  static uiPath: Record<string, string> = {
    ...FakeNetBoxModel.apiPath,
    'core.objectchange': 'core/changelog',
  };

  // ---- brief (nested) objects --------------------------------------------------------------------

  deviceBrief(o: string, d: DeviceRec): Record<string, unknown> {
    return { id: d.id, url: `${o}/api/dcim/devices/${d.id}/`, display: d.name, name: d.name, description: d.description };
  }

  interfaceBrief(o: string, i: InterfaceRec): Record<string, unknown> {
    const device = this.devices.get(i.device)!;
    const cable = i.cable === null ? null : this.cables.get(i.cable);
    return {
      id: i.id,
      url: `${o}/api/dcim/interfaces/${i.id}/`,
      display: interfaceDisplay(i),
      device: this.deviceBrief(o, device),
      name: i.name,
      description: i.description,
      cable: cable ? this.cableBrief(o, cable) : null,
      _occupied: i.cable !== null || i.mark_connected,
    };
  }

  cableBrief(o: string, c: CableRec): Record<string, unknown> {
    return { id: c.id, url: `${o}/api/dcim/cables/${c.id}/`, display: c.label || `#${c.id}`, label: c.label, description: c.description };
  }

  macBrief(o: string, m: MacRec): Record<string, unknown> {
    return { id: m.id, url: `${o}/api/dcim/mac-addresses/${m.id}/`, display: m.mac_address, mac_address: m.mac_address, description: m.description };
  }

  userBrief(o: string, u: UserRec): Record<string, unknown> {
    return { id: u.id, url: `${o}/api/users/users/${u.id}/`, display: u.username, username: u.username };
  }

  journalBrief(o: string, j: JournalRec): Record<string, unknown> {
    return { id: j.id, url: `${o}/api/extras/journal-entries/${j.id}/`, display: journalDisplay(j), created: j.created };
  }

  ipNested(o: string, ip: IpRec): Record<string, unknown> {
    const brief = this.netboxVersion.startsWith('4.5.');
    // DeviceSerializer: IPAddressSerializer(nested=True, fields=[*brief_fields, 'dns_name', 'nat_inside', 'nat_outside'])
    const family = ip.address.includes(':') ? { value: 6, label: 'IPv6' } : { value: 4, label: 'IPv4' };
    const out: Record<string, unknown> = {
      id: ip.id,
      url: `${o}/api/ipam/ip-addresses/${ip.id}/`,
      display: ip.address,
      family,
      address: ip.address,
      description: ip.description,
    };
    // NetBox 4.5.10 nests the brief fields only (devices-by-serial.json).
    return brief ? out : { ...out, dns_name: ip.dns_name, nat_inside: null, nat_outside: [] };
  }

  /** The brief form of any object, by its object type (`dcim.device`), or null when it is gone. */
  briefOf(o: string, type: string | null, id: number | null): Record<string, unknown> | null {
    if (type === null || id === null) return null;
    switch (type) {
      case 'dcim.device':
        return ifFound(this.devices.get(id), (d) => this.deviceBrief(o, d));
      case 'dcim.interface':
        return ifFound(this.interfaces.get(id), (i) => this.interfaceBrief(o, i));
      case 'dcim.macaddress':
        return ifFound(this.macs.get(id), (m) => this.macBrief(o, m));
      case 'dcim.cable':
        return ifFound(this.cables.get(id), (c) => this.cableBrief(o, c));
      case 'extras.journalentry':
        return ifFound(this.journal.get(id), (j) => this.journalBrief(o, j));
      default:
        return null;
    }
  }

  exists(type: string, id: number): boolean {
    return this.briefOf('', type, id) !== null;
  }

  reprOf(type: string, id: number): string {
    const b = this.briefOf('', type, id);
    return b ? String(b['display']) : `${type} ${id}`;
  }

  // ---- full objects ------------------------------------------------------------------------------

  customFieldsOut(data: Record<string, unknown>): Record<string, unknown> {
    // CustomFieldsDataField.to_representation: every field defined on the model, null when unset.
    const out: Record<string, unknown> = {};
    for (const cf of this.customFields.values()) out[cf.name] = data[cf.name] ?? null;
    return out;
  }

  device(o: string, d: DeviceRec): Record<string, unknown> {
    const type = DEVICE_TYPES[d.role];
    const role = ROLES[d.role];
    const ip4 = d.primary_ip4 === null ? null : (this.ips.get(d.primary_ip4) ?? null);
    const interfaceCount = [...this.interfaces.values()].filter((i) => i.device === d.id).length;
    return {
      id: d.id,
      url: `${o}/api/dcim/devices/${d.id}/`,
      display_url: `${o}/dcim/devices/${d.id}/`,
      display: d.name,
      name: d.name,
      device_type: {
        id: type.id,
        url: `${o}/api/dcim/device-types/${type.id}/`,
        display: type.model,
        manufacturer: {
          id: MANUFACTURER.id,
          url: `${o}/api/dcim/manufacturers/${MANUFACTURER.id}/`,
          display: MANUFACTURER.name,
          name: MANUFACTURER.name,
          slug: MANUFACTURER.slug,
          description: '',
        },
        model: type.model,
        slug: type.slug,
        description: '',
        device_count: [...this.devices.values()].filter((x) => x.role === d.role).length,
      },
      role: {
        id: role.id,
        url: `${o}/api/dcim/device-roles/${role.id}/`,
        display: role.name,
        name: role.name,
        slug: role.slug,
        description: '',
        _depth: 0,
        device_count: [...this.devices.values()].filter((x) => x.role === d.role).length,
        virtualmachine_count: 0,
      },
      tenant: null,
      platform: null,
      serial: d.serial,
      asset_tag: d.asset_tag,
      site: { id: SITE.id, url: `${o}/api/dcim/sites/${SITE.id}/`, display: SITE.name, name: SITE.name, slug: SITE.slug, description: '' },
      location: null,
      rack: null,
      position: null,
      face: null,
      latitude: null,
      longitude: null,
      parent_device: null,
      status: { value: d.status, label: DEVICE_STATUS_LABELS[d.status] ?? '' },
      airflow: null,
      primary_ip: ip4 ? this.ipNested(o, ip4) : null,
      primary_ip4: ip4 ? this.ipNested(o, ip4) : null,
      primary_ip6: null,
      oob_ip: null,
      cluster: null,
      virtual_chassis: null,
      vc_position: null,
      vc_priority: null,
      description: d.description,
      owner: null,
      comments: d.comments,
      config_template: null,
      config_context: {},
      local_context_data: null,
      tags: [],
      custom_fields: this.customFieldsOut(d.custom_field_data),
      created: d.created,
      last_updated: d.last_updated,
      console_port_count: 0,
      console_server_port_count: 0,
      power_port_count: 0,
      power_outlet_count: 0,
      interface_count: interfaceCount,
      front_port_count: 0,
      rear_port_count: 0,
      device_bay_count: 0,
      module_bay_count: 0,
      inventory_item_count: 0,
    };
  }

  peersOf(i: InterfaceRec): InterfaceRec[] {
    if (i.cable === null) return [];
    const c = this.cables.get(i.cable);
    if (!c) return [];
    const far = c.a.includes(i.id) ? c.b : c.a;
    return far.map((id) => this.interfaces.get(id)).filter((x): x is InterfaceRec => x !== undefined);
  }

  interface(o: string, i: InterfaceRec): Record<string, unknown> {
    const device = this.devices.get(i.device)!;
    const cable = i.cable === null ? null : (this.cables.get(i.cable) ?? null);
    const peers = this.peersOf(i);
    const primary = i.primary_mac_address === null ? null : (this.macs.get(i.primary_mac_address) ?? null);
    const macs = [...this.macs.values()].filter((m) => m.assigned_object_type === 'dcim.interface' && m.assigned_object_id === i.id);
    const connected = peers.length > 0;
    return {
      id: i.id,
      url: `${o}/api/dcim/interfaces/${i.id}/`,
      display_url: `${o}/dcim/interfaces/${i.id}/`,
      display: interfaceDisplay(i),
      device: this.deviceBrief(o, device),
      vdcs: [],
      module: null,
      name: i.name,
      label: i.label,
      type: { value: i.type, label: INTERFACE_TYPE_LABELS[i.type] ?? i.type },
      enabled: i.enabled,
      parent: null,
      bridge: null,
      bridge_interfaces: [],
      lag: null,
      mtu: null,
      mac_address: primary ? primary.mac_address : null,
      primary_mac_address: primary ? this.macBrief(o, primary) : null,
      mac_addresses: macs.map((m) => this.macBrief(o, m)),
      speed: null,
      duplex: null,
      wwn: null,
      mgmt_only: i.mgmt_only,
      description: i.description,
      mode: null,
      rf_role: null,
      rf_channel: null,
      poe_mode: null,
      poe_type: null,
      rf_channel_frequency: null,
      rf_channel_width: null,
      tx_power: null,
      untagged_vlan: null,
      tagged_vlans: [],
      qinq_svlan: null,
      vlan_translation_policy: null,
      mark_connected: i.mark_connected,
      cable: cable ? this.cableBrief(o, cable) : null,
      cable_end: i.cable_end === '' ? null : i.cable_end, // NetBox 4.5: null without a cable
      wireless_link: null,
      link_peers: peers.map((p) => this.interfaceBrief(o, p)),
      link_peers_type: connected ? 'dcim.interface' : null,
      wireless_lans: [],
      vrf: null,
      l2vpn_termination: null,
      connected_endpoints: connected ? peers.map((p) => this.interfaceBrief(o, p)) : null,
      connected_endpoints_type: connected ? 'dcim.interface' : null,
      connected_endpoints_reachable: connected ? cable?.status === 'connected' : false,
      owner: null,
      tags: [],
      custom_fields: {},
      created: i.created,
      last_updated: i.last_updated,
      count_ipaddresses: 0,
      count_fhrp_groups: 0,
      _occupied: i.cable !== null || i.mark_connected,
    };
  }

  mac(o: string, m: MacRec): Record<string, unknown> {
    return {
      id: m.id,
      url: `${o}/api/dcim/mac-addresses/${m.id}/`,
      display_url: `${o}/dcim/mac-addresses/${m.id}/`,
      display: m.mac_address,
      mac_address: m.mac_address,
      assigned_object_type: m.assigned_object_type,
      assigned_object_id: m.assigned_object_id,
      assigned_object: this.briefOf(o, m.assigned_object_type, m.assigned_object_id),
      description: m.description,
      owner: null,
      comments: m.comments,
      tags: [],
      custom_fields: {},
      created: m.created,
      last_updated: m.last_updated,
    };
  }

  cable(o: string, c: CableRec): Record<string, unknown> {
    const term = (id: number): Record<string, unknown> => ({
      object_type: 'dcim.interface',
      object_id: id,
      object: this.briefOf(o, 'dcim.interface', id),
    });
    return {
      id: c.id,
      url: `${o}/api/dcim/cables/${c.id}/`,
      display_url: `${o}/dcim/cables/${c.id}/`,
      display: c.label || `#${c.id}`,
      type: null,
      a_terminations: c.a.map(term),
      b_terminations: c.b.map(term),
      status: { value: c.status, label: CABLE_STATUS_LABELS[c.status] ?? '' },
      profile: null,
      tenant: null,
      label: c.label,
      color: '',
      length: null,
      length_unit: null,
      description: c.description,
      owner: null,
      comments: c.comments,
      tags: [],
      custom_fields: {},
      created: c.created,
      last_updated: c.last_updated,
    };
  }

  journalEntry(o: string, j: JournalRec): Record<string, unknown> {
    return {
      id: j.id,
      url: `${o}/api/extras/journal-entries/${j.id}/`,
      display_url: `${o}/extras/journal-entries/${j.id}/`,
      display: journalDisplay(j),
      assigned_object_type: j.assigned_object_type,
      assigned_object_id: j.assigned_object_id,
      assigned_object: this.briefOf(o, j.assigned_object_type, j.assigned_object_id),
      created: j.created,
      created_by: j.created_by,
      kind: { value: j.kind, label: JOURNAL_KIND_LABELS[j.kind] ?? '' },
      comments: j.comments,
      tags: [],
      custom_fields: {},
      last_updated: j.last_updated,
    };
  }

  objectChange(o: string, c: ChangeRec): Record<string, unknown> {
    const user = c.user === null ? undefined : this.users.get(c.user);
    return {
      id: c.id,
      url: `${o}/api/core/object-changes/${c.id}/`,
      display_url: `${o}/core/changelog/${c.id}/`,
      display: `${contentTypeLabel(c.changed_object_type)} ${c.object_repr} ${CHANGE_ACTION_LABELS[c.action]?.toLowerCase()} by ${c.user_name}`,
      time: c.time,
      user: user ? this.userBrief(o, user) : null,
      user_name: c.user_name,
      request_id: c.request_id,
      action: { value: c.action, label: CHANGE_ACTION_LABELS[c.action] ?? '' },
      changed_object_type: c.changed_object_type,
      changed_object_id: c.changed_object_id,
      changed_object: this.briefOf(o, c.changed_object_type, c.changed_object_id),
      object_repr: c.object_repr,
      message: c.message,
      prechange_data: c.prechange_data,
      postchange_data: c.postchange_data,
    };
  }

  // ---- changelog snapshots (utilities/serialization.py serialize_object, minus created/last_updated) --

  snapshot(type: string, id: number): Record<string, unknown> | null {
    switch (type) {
      case 'dcim.device': {
        const d = this.devices.get(id);
        if (!d) return null;
        return {
          name: d.name,
          device_type: DEVICE_TYPES[d.role].id,
          role: ROLES[d.role].id,
          tenant: null,
          platform: null,
          serial: d.serial,
          asset_tag: d.asset_tag,
          site: SITE.id,
          location: null,
          rack: null,
          position: null,
          face: '',
          status: d.status,
          airflow: null,
          primary_ip4: d.primary_ip4,
          primary_ip6: null,
          oob_ip: null,
          cluster: null,
          virtual_chassis: null,
          vc_position: null,
          vc_priority: null,
          latitude: null,
          longitude: null,
          description: d.description,
          comments: d.comments,
          config_template: null,
          local_context_data: null,
          owner: null,
          // Only the custom fields ever set (custom_field_data), not every defined one.
          custom_fields: structuredClone(d.custom_field_data),
          tags: [],
          // Device's cached component counts (serialize_object includes them).
          console_port_count: 0,
          console_server_port_count: 0,
          power_port_count: 0,
          power_outlet_count: 0,
          interface_count: [...this.interfaces.values()].filter((i) => i.device === d.id).length,
          front_port_count: 0,
          rear_port_count: 0,
          device_bay_count: 0,
          module_bay_count: 0,
          inventory_item_count: 0,
        };
      }
      case 'dcim.interface': {
        const i = this.interfaces.get(id);
        if (!i) return null;
        return {
          device: i.device,
          name: i.name,
          label: i.label,
          type: i.type,
          enabled: i.enabled,
          mgmt_only: i.mgmt_only,
          mark_connected: i.mark_connected,
          cable: i.cable,
          cable_end: i.cable_end === '' ? null : i.cable_end,
          primary_mac_address: i.primary_mac_address,
          description: i.description,
          owner: null,
          custom_fields: {},
          tags: [],
        };
      }
      case 'dcim.macaddress': {
        const m = this.macs.get(id);
        if (!m) return null;
        return {
          mac_address: m.mac_address,
          assigned_object_type: m.assigned_object_type === null ? null : contentTypeId(m.assigned_object_type),
          assigned_object_id: m.assigned_object_id,
          description: m.description,
          comments: m.comments,
          owner: null,
          custom_fields: {},
          tags: [],
        };
      }
      case 'dcim.cable': {
        const c = this.cables.get(id);
        if (!c) return null;
        return {
          type: '',
          status: c.status,
          profile: '',
          tenant: null,
          label: c.label,
          color: '',
          length: null,
          length_unit: '',
          description: c.description,
          comments: c.comments,
          owner: null,
          custom_fields: {},
          tags: [],
          a_terminations: c.a.map((i) => ({ object_type: 'dcim.interface', object_id: i })),
          b_terminations: c.b.map((i) => ({ object_type: 'dcim.interface', object_id: i })),
        };
      }
      case 'extras.journalentry': {
        const j = this.journal.get(id);
        if (!j) return null;
        return {
          assigned_object_type: contentTypeId(j.assigned_object_type),
          assigned_object_id: j.assigned_object_id,
          created_by: j.created_by,
          kind: j.kind,
          comments: j.comments,
          custom_fields: {},
          tags: [],
        };
      }
      default:
        return null;
    }
  }
}

function interfaceDisplay(i: InterfaceRec): string {
  return i.label ? `${i.name} (${i.label})` : i.name;
}

function journalDisplay(j: JournalRec): string {
  return `${j.created.slice(0, 16).replace('T', ' ')} (${JOURNAL_KIND_LABELS[j.kind] ?? j.kind})`;
}

/** ObjectType (content type) ids as a freshly migrated NetBox numbers them. */
export const CONTENT_TYPE_IDS: Readonly<Record<string, number>> = {
  'dcim.device': 31,
  'dcim.interface': 44,
  'dcim.macaddress': 95,
  'dcim.cable': 29,
  'extras.journalentry': 70,
};

export function contentTypeId(type: string): number {
  return CONTENT_TYPE_IDS[type] ?? 0;
}

/** Django's ContentType.__str__ (`app_labeled_name`). */
export function contentTypeLabel(type: string): string {
  const [app, model] = type.split('.');
  const apps: Record<string, string> = { dcim: 'DCIM', extras: 'Extras', ipam: 'IPAM', core: 'Core' };
  const models: Record<string, string> = { macaddress: 'MAC address', journalentry: 'journal entry' };
  return `${apps[app ?? ''] ?? app} | ${models[model ?? ''] ?? model}`;
}

function ifFound<T>(rec: T | undefined, brief: (rec: T) => Record<string, unknown>): Record<string, unknown> | null {
  return rec === undefined ? null : brief(rec);
}

/**
 * What NetBox 4.x objects look like (the parts fleet reads), and readers that tolerate older and
 * unknown shapes. Every interface is open (`[field: string]: unknown`): NetBox adds fields between
 * releases, and an unknown field is never an error. The readers accept the 4.x shape first and the
 * 2.x/3.x shapes pynetbox's fixtures show, and answer `null` rather than throw on anything else.
 */

/** A choice field: `{value, label}` (status, kind, action, type, …). */
export interface NetBoxChoice<V = string> {
  value: V;
  label: string;
  [field: string]: unknown;
}

/** A nested ("brief") related object. */
export interface NetBoxBrief {
  id: number;
  url: string;
  display: string;
  [field: string]: unknown;
}

export interface NetBoxPage<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

export interface NetBoxObject {
  id: number;
  url: string;
  display_url?: string;
  display: string;
  custom_fields?: Record<string, unknown>;
  created?: string | null;
  last_updated?: string | null;
  [field: string]: unknown;
}

export interface NetBoxDevice extends NetBoxObject {
  name: string | null;
  serial: string;
  status: NetBoxChoice | null;
  primary_ip4: (NetBoxBrief & { address: string }) | null;
  custom_fields: Record<string, unknown>;
}

export interface NetBoxInterface extends NetBoxObject {
  device: NetBoxBrief & { name: string | null };
  name: string;
  cable: (NetBoxBrief & { label?: string }) | null;
  cable_end?: string;
  link_peers?: Array<NetBoxBrief & { device?: NetBoxBrief & { name: string | null }; name?: string }>;
  link_peers_type?: string | null;
  /** 4.2+ */
  mac_addresses?: Array<NetBoxBrief & { mac_address: string }>;
  /** 4.2+ */
  primary_mac_address?: (NetBoxBrief & { mac_address: string }) | null;
  /** Before 4.2 the MAC itself; since 4.2 the primary MAC's address, read-only. */
  mac_address?: string | null;
}

export interface NetBoxMacAddress extends NetBoxObject {
  mac_address: string;
  assigned_object_type: string | null;
  assigned_object_id: number | null;
  assigned_object: NetBoxBrief | null;
}

export interface NetBoxCable extends NetBoxObject {
  a_terminations: Array<{ object_type: string; object_id: number; object: NetBoxBrief }>;
  b_terminations: Array<{ object_type: string; object_id: number; object: NetBoxBrief }>;
  status: NetBoxChoice | null;
  label: string;
}

export interface NetBoxJournalEntry extends NetBoxObject {
  assigned_object_type: string;
  assigned_object_id: number;
  created_by: number | null;
  kind: NetBoxChoice;
  comments: string;
}

export interface NetBoxObjectChange extends NetBoxObject {
  time: string;
  user: (NetBoxBrief & { username: string }) | null;
  user_name: string;
  request_id: string;
  action: NetBoxChoice<'create' | 'update' | 'delete'>;
  changed_object_type: string;
  changed_object_id: number;
  changed_object: NetBoxBrief | null;
  object_repr: string;
  message?: string;
  prechange_data: Record<string, unknown> | null;
  postchange_data: Record<string, unknown> | null;
}

export interface NetBoxStatus {
  'netbox-version': string;
  [field: string]: unknown;
}

/** The value of a choice field: `{value, label}` (4.x), a bare value (old or write shapes), or null. */
export function choiceValue(field: unknown): string | null {
  if (field === null || field === undefined) return null;
  if (typeof field === 'string') return field;
  if (typeof field === 'number' || typeof field === 'boolean') return String(field);
  if (typeof field === 'object' && 'value' in (field as object)) {
    const v = (field as { value: unknown }).value;
    return v === null || v === undefined ? null : String(v);
  }
  return null;
}

/** The id of a related object: nested `{id}` (4.x) or a bare id (old shapes, traces). */
export function relatedId(field: unknown): number | null {
  if (typeof field === 'number' && Number.isInteger(field)) return field;
  if (field !== null && typeof field === 'object') {
    const id = (field as { id?: unknown }).id;
    if (typeof id === 'number' && Number.isInteger(id)) return id;
  }
  return null;
}

/** An interface's primary MAC: `primary_mac_address.mac_address` (4.2+), else the legacy `mac_address`. */
export function interfacePrimaryMac(iface: unknown): string | null {
  if (iface === null || typeof iface !== 'object') return null;
  const o = iface as Record<string, unknown>;
  const primary = o['primary_mac_address'];
  if (primary !== null && typeof primary === 'object') {
    const mac = (primary as { mac_address?: unknown }).mac_address;
    if (typeof mac === 'string' && mac) return mac;
  }
  const legacy = o['mac_address'];
  return typeof legacy === 'string' && legacy ? legacy : null;
}

/**
 * The far ends of an interface's cable: `link_peers` (3.3+), else the 3.x `connected_endpoints`,
 * each as `{device, name}` where known.
 */
export function interfacePeers(iface: unknown): Array<{ id: number | null; device: string | null; name: string | null }> {
  if (iface === null || typeof iface !== 'object') return [];
  const o = iface as Record<string, unknown>;
  const raw = Array.isArray(o['link_peers']) ? o['link_peers'] : Array.isArray(o['connected_endpoints']) ? o['connected_endpoints'] : [];
  return (raw as unknown[]).map((p) => {
    const peer = (p ?? {}) as Record<string, unknown>;
    const device = peer['device'] as Record<string, unknown> | undefined;
    const deviceName = device && typeof device === 'object' ? (device['name'] ?? device['display']) : null;
    return {
      id: relatedId(peer),
      device: typeof deviceName === 'string' ? deviceName : null,
      name: typeof peer['name'] === 'string' ? peer['name'] : null,
    };
  });
}

/** A custom field's value, or null when the object has no such custom field (or no custom fields). */
export function customField(obj: unknown, name: string): unknown {
  if (obj === null || typeof obj !== 'object') return null;
  const cf = (obj as { custom_fields?: unknown }).custom_fields;
  if (cf === null || typeof cf !== 'object') return null;
  const v = (cf as Record<string, unknown>)[name];
  return v === undefined ? null : v;
}

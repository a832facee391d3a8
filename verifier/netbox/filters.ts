import { NETBOX_ERROR_CODES, NetBoxError } from './errors.js';

/**
 * The endpoints fleet reads and writes, and for each the only filters the client will send.
 *
 * NetBox silently ignores a query parameter it does not know: `?seral=X` (or `?time__gte=…` on the
 * changelog, which has no such filter) answers EVERY object. So the client refuses, before sending,
 * any filter not listed here, and any empty value (NetBox also ignores `?serial=`).
 *
 * Names and semantics checked against NetBox 4.6's filtersets (dcim/filtersets.py,
 * extras/filtersets.py, core/filtersets.py) and custom field filters (extras/models/customfields.py):
 * - devices `name` and `serial` match case-INSENSITIVELY (`lookup_expr='iexact'`): compare the
 *   answer yourself when case matters;
 * - text custom fields filter by SUBSTRING (`filter_logic` "loose", the default), so they are not
 *   whitelisted; select custom fields (`cf_desired_action`) match exactly;
 * - interfaces `device_id` and journal `kind` answer 400 for an unknown device / kind, they do not
 *   answer an empty list;
 * - the changelog's time filter is a range filter: `time_after` / `time_before`, not `time__gte`.
 */
export const NETBOX_ENDPOINTS = [
  'dcim/devices',
  'dcim/interfaces',
  'dcim/mac-addresses',
  'dcim/cables',
  'extras/journal-entries',
  'core/object-changes',
] as const;

export type NetBoxEndpoint = (typeof NETBOX_ENDPOINTS)[number];

export type FilterScalar = string | number | boolean;
export type NetBoxFilters = Readonly<Record<string, FilterScalar | readonly FilterScalar[] | undefined | null>>;

type Rule =
  | { kind: 'id' }
  | { kind: 'text' }
  | { kind: 'bool' }
  | { kind: 'choice'; choices: readonly string[] }
  | { kind: 'mac' }
  | { kind: 'object-type' }
  | { kind: 'datetime' }
  | { kind: 'ordering'; fields: readonly string[] };

const id: Rule = { kind: 'id' };
const text: Rule = { kind: 'text' };
const bool: Rule = { kind: 'bool' };

/** dcim/choices.py DeviceStatusChoices */
export const DEVICE_STATUSES = ['offline', 'active', 'planned', 'staged', 'failed', 'inventory', 'decommissioning'] as const;
/** extras/choices.py JournalEntryKindChoices */
export const JOURNAL_KINDS = ['info', 'success', 'warning', 'danger'] as const;
/** core/choices.py ObjectChangeActionChoices */
export const CHANGE_ACTIONS = ['create', 'update', 'delete'] as const;
/** The choice set fleet defines for the `desired_action` select custom field. */
export const DESIRED_ACTIONS = ['provision', 'retire'] as const;

const WHITELIST: Record<NetBoxEndpoint, Record<string, Rule>> = {
  'dcim/devices': {
    id,
    name: text, // iexact
    serial: text, // iexact
    status: { kind: 'choice', choices: DEVICE_STATUSES },
    cf_desired_action: { kind: 'choice', choices: DESIRED_ACTIONS }, // select: exact
  },
  'dcim/interfaces': {
    id,
    device_id: id,
    name: text, // exact
    cabled: bool,
  },
  'dcim/mac-addresses': {
    id,
    mac_address: { kind: 'mac' },
    assigned_object_type: { kind: 'object-type' },
    assigned_object_id: id,
  },
  'dcim/cables': {
    id,
  },
  'extras/journal-entries': {
    id,
    assigned_object_type: { kind: 'object-type' },
    assigned_object_id: id,
    kind: { kind: 'choice', choices: JOURNAL_KINDS },
  },
  'core/object-changes': {
    id,
    changed_object_type: { kind: 'object-type' },
    changed_object_id: id,
    user_name: text, // exact
    action: { kind: 'choice', choices: CHANGE_ACTIONS },
    request_id: text,
    time_after: { kind: 'datetime' },
    time_before: { kind: 'datetime' },
    ordering: { kind: 'ordering', fields: ['time', '-time', 'id', '-id'] },
  },
};

/** Filters people reach for that NetBox does not have (or that do not mean what they seem to). */
const KNOWN_TRAPS: Partial<Record<NetBoxEndpoint, Record<string, string>>> = {
  'core/object-changes': {
    time__gte: 'NetBox has no time__gte filter on object changes (its time filter is a range: use time_after)',
    time__lte: 'NetBox has no time__lte filter on object changes (its time filter is a range: use time_before)',
    time__gt: 'NetBox has no time__gt filter on object changes (use time_after)',
    time__lt: 'NetBox has no time__lt filter on object changes (use time_before)',
    time: 'NetBox ignores time= on object changes (use time_after / time_before)',
    changed_object_type_id: 'use changed_object_type ("dcim.device") rather than a content type id',
  },
  'dcim/devices': {
    mac_address: 'filter interfaces or mac-addresses instead: a device mac_address filter matches any of its interfaces',
  },
};

const RESERVED: Record<string, string> = {
  limit: 'the client pages by itself (limit=1000, following next)',
  offset: 'the client pages by itself (limit=1000, following next)',
  brief: 'the client always reads full objects',
  fields: 'the client always reads full objects',
  exclude: 'the client always reads full objects',
  omit: 'the client always reads full objects',
  q: 'a search matches substrings in many fields',
  format: 'the client always asks for JSON',
};

export function isNetBoxEndpoint(value: string): value is NetBoxEndpoint {
  return (NETBOX_ENDPOINTS as readonly string[]).includes(value);
}

function refuse(endpoint: string, message: string): NetBoxError {
  return new NetBoxError(NETBOX_ERROR_CODES.filterRefused, `refused to query ${endpoint}: ${message}`, { path: `${endpoint}/` });
}

const MAC = /^[0-9A-Fa-f]{2}([:-]?)[0-9A-Fa-f]{2}(\1[0-9A-Fa-f]{2}){4}$/;
const OBJECT_TYPE = /^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/;
const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

function checkValue(endpoint: string, name: string, rule: Rule, value: FilterScalar): string {
  const bad = (why: string): NetBoxError => refuse(endpoint, `filter ${name}=${JSON.stringify(value)} ${why}`);
  switch (rule.kind) {
    case 'id': {
      const s = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
      if (!/^[1-9]\d{0,15}$/.test(s)) throw bad('is not an object id (a positive integer)');
      return s;
    }
    case 'text': {
      if (typeof value === 'boolean') throw bad('is not text');
      const s = String(value);
      if (s.trim() === '') throw bad('is empty, and NetBox ignores an empty filter (it would answer every object)');
      return s;
    }
    case 'bool':
      if (typeof value !== 'boolean') throw bad('is not true or false');
      return value ? 'true' : 'false';
    case 'choice':
      if (typeof value !== 'string' || !rule.choices.includes(value)) throw bad(`is not one of ${rule.choices.join(', ')}`);
      return value;
    case 'mac':
      if (typeof value !== 'string' || !MAC.test(value)) throw bad('is not a MAC address (aa:bb:cc:dd:ee:ff)');
      return value;
    case 'object-type':
      if (typeof value !== 'string' || !OBJECT_TYPE.test(value)) throw bad('is not an object type such as "dcim.device"');
      return value;
    case 'datetime':
      if (typeof value !== 'string' || !ISO_DATETIME.test(value) || Number.isNaN(Date.parse(value))) {
        throw bad('is not an ISO 8601 date/time');
      }
      return value;
    case 'ordering':
      if (typeof value !== 'string' || !rule.fields.includes(value)) throw bad(`is not one of ${rule.fields.join(', ')}`);
      return value;
  }
}

/**
 * Checks `filters` against the endpoint's whitelist and returns the query they make. A list value
 * becomes a repeated parameter (NetBox ORs them). Throws `netbox-filter-refused` for anything else.
 */
export function buildFilterQuery(endpoint: string, filters: NetBoxFilters = {}): URLSearchParams {
  if (!isNetBoxEndpoint(endpoint)) {
    throw refuse(endpoint, `it is not an endpoint fleet uses (${NETBOX_ENDPOINTS.join(', ')})`);
  }
  if (filters === null || typeof filters !== 'object' || Array.isArray(filters)) {
    throw refuse(endpoint, 'filters must be an object of name → value');
  }
  const rules = WHITELIST[endpoint];
  const query = new URLSearchParams();
  for (const [name, raw] of Object.entries(filters)) {
    const rule = Object.hasOwn(rules, name) ? rules[name] : undefined;
    if (rule === undefined) {
      const trap = KNOWN_TRAPS[endpoint]?.[name] ?? RESERVED[name];
      const allowed = Object.keys(rules).join(', ');
      throw refuse(
        endpoint,
        trap !== undefined
          ? `filter "${name}" is refused: ${trap}`
          : `filter "${name}" is not one the client knows for ${endpoint} (NetBox would silently ignore an unknown filter ` +
              `and answer every object); allowed: ${allowed}`,
      );
    }
    if (raw === undefined || raw === null) {
      throw refuse(endpoint, `filter ${name} has no value, and NetBox ignores an empty filter (it would answer every object)`);
    }
    const values = Array.isArray(raw) ? (raw as readonly FilterScalar[]) : [raw as FilterScalar];
    if (values.length === 0) {
      throw refuse(endpoint, `filter ${name} is an empty list, and NetBox ignores an empty filter (it would answer every object)`);
    }
    if (rule.kind === 'ordering' && values.length > 1) throw refuse(endpoint, 'ordering takes one value');
    for (const v of values) query.append(name, checkValue(endpoint, name, rule, v));
  }
  return query;
}

/** The whitelisted filter names of an endpoint (for documentation and tests). */
export function allowedFilters(endpoint: NetBoxEndpoint): string[] {
  return Object.keys(WHITELIST[endpoint]);
}

/**
 * The fake NetBox's list queries: filters as NetBox's filtersets define them (names, exact vs
 * case-insensitive vs substring, which ones answer 400 for a bad value), NetBox's silence about
 * unknown parameters, DRF ordering, and NetBox's OptionalLimitOffsetPagination (default 50, cap
 * MAX_PAGE_SIZE, absolute next/previous links with sorted parameters, as DRF's replace_query_param
 * builds them).
 *
 * A parameter that is a real NetBox filter the fake does not implement answers 400 with a
 * `fake-netbox:` detail, so a test can never pass because the fake ignored what NetBox would apply.
 */
import {
  contentTypeId,
  CONTENT_TYPE_IDS,
  normalizeMac,
  parseIsoMicros,
  type ChangeRec,
  type CustomFieldDef,
  type DeviceRec,
  type FakeNetBoxModel,
} from './fake-netbox-model.js';

export type Errors = Record<string, string[]>;
type Pred<T> = (o: T) => boolean;

interface FilterResult<T> {
  preds: Array<Pred<T>>;
  errors: Errors;
  /** A `fake-netbox:` reason when the query uses something the fake does not implement. */
  unsupported?: string;
}

const choiceError = (v: string): string => `Select a valid choice. ${v} is not one of the available choices.`;
const PAGINATION = new Set(['limit', 'offset', 'ordering', 'brief', 'format']);
const NOT_IMPLEMENTED_PARAMS = new Set(['fields', 'exclude', 'omit', 'include', 'q']);

/** Real NetBox filters on these endpoints that the fake does not implement. */
const REAL_BUT_UNIMPLEMENTED: Record<string, string[]> = {
  devices: [
    'site',
    'site_id',
    'role_id',
    'device_type',
    'device_type_id',
    'manufacturer',
    'manufacturer_id',
    'tag',
    'tenant',
    'tenant_id',
    'platform',
    'platform_id',
    'rack_id',
    'location_id',
    'has_primary_ip',
    'asset_tag',
    'model',
    'cluster_id',
    'virtual_chassis_id',
    'interfaces',
    'description',
    'created',
    'last_updated',
  ],
  interfaces: [
    'device',
    'type',
    'mgmt_only',
    'enabled',
    'mac_address',
    'kind',
    'connected',
    'cable_id',
    'occupied',
    'label',
    'primary_mac_address',
    'primary_mac_address_id',
    'description',
    'site_id',
    'mark_connected',
    'cable_end',
  ],
  'mac-addresses': ['device', 'device_id', 'interface', 'interface_id', 'assigned', 'primary', 'description'],
  cables: ['device', 'device_id', 'status', 'site', 'site_id', 'interface_id', 'label', 'termination_a_id', 'termination_b_id', 'type'],
  'journal-entries': ['created_by', 'created_by_id', 'created_after', 'created_before', 'assigned_object_type_id'],
  'object-changes': ['user', 'user_id', 'related_object_type', 'related_object_id', 'object_repr'],
};

type Filters<T> = Record<string, (values: string[], model: FakeNetBoxModel) => { pred?: Pred<T>; error?: string[] }>;

function ids<T>(get: (o: T) => number | null): (values: string[]) => { pred?: Pred<T>; error?: string[] } {
  return (values) => {
    const nums: number[] = [];
    for (const v of values) {
      if (!/^\s*-?\d+(\.0*)?\s*$/.test(v)) return { error: ['Enter a number.'] };
      nums.push(Number.parseInt(v, 10));
    }
    return { pred: (o) => nums.includes(get(o) ?? Number.NaN) };
  };
}

function exact<T>(get: (o: T) => string | null, caseInsensitive = false): (values: string[]) => { pred: Pred<T> } {
  const norm = (s: string): string => (caseInsensitive ? s.toLowerCase() : s);
  return (values) => {
    const wanted = values.map(norm);
    return { pred: (o) => wanted.includes(norm(get(o) ?? '\u0000')) };
  };
}

function choice<T>(get: (o: T) => string, choices: readonly string[]): (values: string[]) => { pred?: Pred<T>; error?: string[] } {
  return (values) => {
    const bad = values.find((v) => !choices.includes(v));
    if (bad !== undefined) return { error: [choiceError(bad)] };
    return { pred: (o) => values.includes(get(o)) };
  };
}

/** django-filter's BooleanFilter: anything it cannot read as a boolean means "no filter". */
function parseBool(v: string): boolean | undefined {
  if (['true', 'True', '1'].includes(v)) return true;
  if (['false', 'False', '0'].includes(v)) return false;
  return undefined;
}

function customFieldFilter(cf: CustomFieldDef): ((values: string[]) => { pred?: Pred<DeviceRec>; error?: string[] }) | undefined {
  if (cf.filterLogic === 'disabled') return undefined;
  const get = (d: DeviceRec): unknown => d.custom_field_data[cf.name];
  switch (cf.type) {
    case 'text':
      if ((cf.filterLogic ?? 'loose') === 'loose') {
        // extras/models/customfields.py to_filter: FILTER_LOOSE → lookup_expr 'icontains'
        return (values) => ({
          pred: (d) => {
            const v = get(d);
            return typeof v === 'string' && values.some((w) => v.toLowerCase().includes(w.toLowerCase()));
          },
        });
      }
      return (values) => ({ pred: (d) => values.includes(String(get(d))) });
    case 'select':
      return (values) => ({ pred: (d) => values.includes(String(get(d))) });
    case 'integer':
      return (values) => ({ pred: (d) => values.map(Number).includes(Number(get(d))) });
    case 'boolean':
      return (values) => {
        const b = parseBool(values[values.length - 1] ?? '');
        return b === undefined ? {} : { pred: (d) => Boolean(get(d)) === b && get(d) !== null && get(d) !== undefined };
      };
  }
}

export function deviceFilters(model: FakeNetBoxModel): Filters<DeviceRec> {
  const f: Filters<DeviceRec> = {
    id: ids((d) => d.id),
    name: exact((d) => d.name, true), // MultiValueCharFilter(lookup_expr='iexact')
    serial: exact((d) => d.serial, true), // MultiValueCharFilter(lookup_expr='iexact')
    status: choice((d) => d.status, Object.keys(STATUS)),
    // role: ModelMultipleChoiceFilter(field_name='role__slug'); the fake's roles are `server` and `switch`.
    role: choice((d) => d.role, ['server', 'switch']),
    // MultiValueMACAddressFilter(field_name='interfaces__mac_addresses__mac_address'): any MAC object of
    // any interface of the device; a value that is no MAC matches nothing (filter-devices-mac-address.json).
    mac_address: (values) => {
      const wanted = values.map(normalizeMac).filter((m): m is string => m !== null);
      return {
        pred: (d) =>
          [...model.macs.values()].some(
            (m) =>
              wanted.includes(m.mac_address) &&
              m.assigned_object_type === 'dcim.interface' &&
              model.interfaces.get(m.assigned_object_id ?? -1)?.device === d.id,
          ),
      };
    },
  };
  for (const cf of model.customFields.values()) {
    const filter = customFieldFilter(cf);
    if (filter) f[`cf_${cf.name}`] = filter;
  }
  return f;
}
const STATUS = { offline: 1, active: 1, planned: 1, staged: 1, failed: 1, inventory: 1, decommissioning: 1 };

export function interfaceFilters(): Filters<import('./fake-netbox-model.js').InterfaceRec> {
  return {
    id: ids((i) => i.id),
    name: exact((i) => i.name),
    // DeviceComponentFilterSet: ModelMultipleChoiceFilter(queryset=Device.objects.all())
    device_id: (values, model) => {
      for (const v of values) {
        if (!/^\s*\d+\s*$/.test(v)) return { error: [`“${v}” is not a valid value.`] };
        if (!model.devices.has(Number(v))) return { error: [choiceError(v)] };
      }
      const wanted = values.map(Number);
      return { pred: (i) => wanted.includes(i.device) };
    },
    // CabledObjectFilterSet: BooleanFilter(field_name='cable', lookup_expr='isnull', exclude=True)
    cabled: (values) => {
      const b = parseBool(values[values.length - 1] ?? '');
      return b === undefined ? {} : { pred: (i) => (i.cable !== null) === b };
    },
  };
}

export function macFilters(): Filters<import('./fake-netbox-model.js').MacRec> {
  return {
    id: ids((m) => m.id),
    mac_address: (values) => {
      const wanted = values.map(normalizeMac).filter((m): m is string => m !== null);
      return { pred: (m) => wanted.includes(m.mac_address) };
    },
    assigned_object_type: (values) => ({ pred: (m) => m.assigned_object_type !== null && values.map((v) => v.toLowerCase()).includes(m.assigned_object_type) }),
    assigned_object_id: ids((m) => m.assigned_object_id),
  };
}

export function cableFilters(): Filters<import('./fake-netbox-model.js').CableRec> {
  return { id: ids((c) => c.id) };
}

export function journalFilters(): Filters<import('./fake-netbox-model.js').JournalRec> {
  return {
    id: ids((j) => j.id),
    assigned_object_type: (values) => ({ pred: (j) => values.map((v) => v.toLowerCase()).includes(j.assigned_object_type) }),
    assigned_object_id: ids((j) => j.assigned_object_id),
    kind: choice((j) => j.kind, ['info', 'success', 'warning', 'danger']),
  };
}

export function changeFilters(): Filters<ChangeRec> {
  const time = (cmp: (a: number, b: number) => boolean) => (values: string[]) => {
    const v = values[values.length - 1] ?? '';
    if (v === '') return {};
    const micros = parseIsoMicros(v);
    if (micros === null) return { error: ['Enter a valid date/time.'] };
    return { pred: (c: ChangeRec) => cmp(c.micros, micros) };
  };
  return {
    id: ids((c) => c.id),
    user_name: exact((c) => c.user_name),
    request_id: (values) => {
      if (values.some((v) => !/^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(v))) {
        return { error: ['Enter a valid UUID.'] };
      }
      return { pred: (c) => values.map((v) => v.toLowerCase()).includes(c.request_id) };
    },
    action: choice((c) => c.action, ['create', 'update', 'delete']),
    changed_object_type: (values) => ({ pred: (c) => values.map((v) => v.toLowerCase()).includes(c.changed_object_type) }),
    changed_object_id: ids((c) => c.changed_object_id),
    // ModelMultipleChoiceFilter(queryset=ObjectType.objects.all()): a number that is an object type's id.
    changed_object_type_id: (values) => {
      for (const v of values) if (!/^\s*\d+\s*$/.test(v)) return { error: [`“${v}” is not a valid value.`] };
      const wanted = values.map(Number);
      for (const v of wanted) if (!Object.values(CONTENT_TYPE_IDS).includes(v)) return { error: [choiceError(String(v))] };
      return { pred: (c) => wanted.includes(contentTypeId(c.changed_object_type)) };
    },
    // DateTimeFromToRangeFilter(name='time') reads time_after / time_before; time__gte is no filter at all.
    time_after: time((a, b) => a >= b),
    time_before: time((a, b) => a <= b),
  };
}

/** Applies NetBox's filter semantics: unknown parameters are ignored, bad values answer 400. */
export function applyFilters<T>(endpoint: string, params: URLSearchParams, filters: Filters<T>, model: FakeNetBoxModel): FilterResult<T> {
  const out: FilterResult<T> = { preds: [], errors: {} };
  const names = new Set(params.keys());
  const unimplemented = new Set(REAL_BUT_UNIMPLEMENTED[endpoint] ?? []);
  for (const name of names) {
    if (PAGINATION.has(name)) continue;
    if (NOT_IMPLEMENTED_PARAMS.has(name) || unimplemented.has(name)) {
      out.unsupported = `fake-netbox: ?${name}= is a real NetBox parameter this fake does not implement`;
      return out;
    }
    const base = name.includes('__') ? name.slice(0, name.indexOf('__')) : undefined;
    if (base !== undefined && (base in filters || unimplemented.has(base))) {
      out.unsupported = `fake-netbox: the lookup ?${name}= is a real NetBox filter this fake does not implement`;
      return out;
    }
    const filter = filters[name];
    if (filter === undefined) continue; // NetBox silently ignores unknown parameters
    const values = params.getAll(name).filter((v) => v !== ''); // and empty values
    if (values.length === 0) continue;
    const r = filter(values, model);
    if (r.error) {
      // A DateTimeFromToRangeFilter reports its errors under the filter's name ("time").
      const key = name === 'time_after' || name === 'time_before' ? 'time' : name;
      out.errors[key] = r.error;
    } else if (r.pred) out.preds.push(r.pred);
  }
  return out;
}

/** DRF OrderingFilter: `?ordering=a,-b`; unknown fields are dropped silently. */
export function applyOrdering<T extends object>(items: T[], ordering: string | null, allowed: readonly string[], fallback: (a: T, b: T) => number): T[] {
  const terms = (ordering ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '' && allowed.includes(t.replace(/^-/, '')));
  const sorted = [...items];
  if (terms.length === 0) return sorted.sort(fallback);
  return sorted.sort((a, b) => {
    for (const t of terms) {
      const desc = t.startsWith('-');
      const key = (desc ? t.slice(1) : t) as keyof T;
      const c = compare(
        key === ('time' as keyof T) ? (a as unknown as ChangeRec).micros : a[key],
        key === ('time' as keyof T) ? (b as unknown as ChangeRec).micros : b[key],
      );
      if (c !== 0) return desc ? -c : c;
    }
    return compare((a as { id?: number }).id, (b as { id?: number }).id);
  });
}

export function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b), 'en', { numeric: true });
}

export interface PageParams {
  limit: number;
  offset: number;
}

/** netbox/api/pagination.py OptionalLimitOffsetPagination.get_limit, and DRF's get_offset. */
export function pageParams(params: URLSearchParams, paginateCount: number, maxPageSize: number): PageParams {
  let limit = Math.min(paginateCount, maxPageSize);
  const rawLimit = params.get('limit');
  if (rawLimit !== null) {
    const m = /^\s*\+?(\d+)\s*$/.exec(rawLimit);
    if (m) {
      const n = Number(m[1]);
      limit = maxPageSize ? (n === 0 ? maxPageSize : Math.min(n, maxPageSize)) : n;
    } else limit = paginateCount;
  }
  let offset = 0;
  const rawOffset = params.get('offset');
  if (rawOffset !== null && /^\s*\+?\d+\s*$/.test(rawOffset)) offset = Number(rawOffset);
  return { limit, offset };
}

/** DRF's replace_query_param / remove_query_param: parameters sorted by name. */
function withParams(url: URL, set: Record<string, string>, remove: string[] = []): string {
  const entries: Array<[string, string[]]> = [];
  const names = [...new Set([...url.searchParams.keys(), ...Object.keys(set)])].filter((n) => !remove.includes(n)).sort();
  for (const n of names) entries.push([n, n in set ? [set[n]!] : url.searchParams.getAll(n)]);
  const q = new URLSearchParams();
  for (const [n, vs] of entries) for (const v of vs) q.append(n, v);
  const s = q.toString();
  return `${url.origin}${url.pathname}${s ? `?${s}` : ''}`;
}

export function paginate<T>(all: T[], requestUrl: URL, page: PageParams): { count: number; next: string | null; previous: string | null; results: T[] } {
  const count = all.length;
  const { limit, offset } = page;
  const results = count === 0 || offset > count ? [] : limit ? all.slice(offset, offset + limit) : all.slice(offset);
  let next: string | null = null;
  let previous: string | null = null;
  if (limit) {
    if (offset + limit < count) next = withParams(requestUrl, { limit: String(limit), offset: String(offset + limit) });
    if (offset > 0) {
      previous =
        offset - limit <= 0
          ? withParams(requestUrl, { limit: String(limit) }, ['offset'])
          : withParams(requestUrl, { limit: String(limit), offset: String(offset - limit) });
    }
  }
  return { count, next, previous, results };
}

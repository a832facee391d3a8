/**
 * The objects of the fake Kubernetes API server and what a write does to them, as the real server's
 * generic registry (apiserver/pkg/registry/generic/registry/store.go), its handlers
 * (apiserver/pkg/endpoints/handlers: create, update, patch, delete) and each resource's strategy
 * decide it:
 * - custom resources (apiextensions-apiserver/pkg/registry/customresource/strategy.go): generation 1
 *   on create, +1 when anything but metadata changes; with the status subresource, create drops
 *   `.status`, a write to the resource keeps the stored `.status` and a write to `/status` keeps
 *   everything but `.status`; AllowUnconditionalUpdate is false, so a PUT without
 *   metadata.resourceVersion is refused (422);
 * - Lease (pkg/registry/coordination/lease/strategy.go): PUT may create, no unconditional update,
 *   spec times are MicroTime (exactly six fractional digits, else the body does not decode);
 * - Secret (pkg/registry/core/secret/strategy.go): unconditional update allowed, `stringData` is
 *   merged into `data`, `type` defaults to Opaque and is immutable.
 * Every write bumps one global resourceVersion (an etcd revision); a write that changes nothing is
 * not written and keeps it. Errors are the Status objects of apimachinery/pkg/api/errors.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { applyJsonPatch, decodeJsonPatch, deepEqual, isObject, mergePatch, PatchError, str, type Json, type JsonObject } from './fake-kube-json.js';
import {
  isDns1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  parseFieldSelector,
  parseLabelSelector,
  SelectorError,
  type Matcher,
} from './fake-kube-selectors.js';

export interface ResourceDef {
  group: string;
  version: string;
  plural: string;
  kind: string;
  /** Served from a CustomResourceDefinition: generation, strict kind, no strategic merge patch. */
  custom: boolean;
  /** The `/status` subresource is enabled. */
  status: boolean;
  /** A PUT without metadata.resourceVersion overwrites (strategy.AllowUnconditionalUpdate). */
  unconditionalUpdate: boolean;
  /** A PUT to a missing name creates it (strategy.AllowCreateOnUpdate). */
  createOnUpdate: boolean;
  /** The fields a fieldSelector may name. */
  fieldLabels: readonly string[];
}

const META_FIELDS = ['metadata.name', 'metadata.namespace'];

/** Every Tinkerbell and Rufio CRD declares `subresources: {status: {}}` (tink config/crd/bases, rufio config/crd/bases). */
function crd(group: string, plural: string, kind: string): ResourceDef {
  return { group, version: 'v1alpha1', plural, kind, custom: true, status: true, unconditionalUpdate: false, createOnUpdate: false, fieldLabels: META_FIELDS };
}

export const RESOURCES: readonly ResourceDef[] = [
  crd('tinkerbell.org', 'hardware', 'Hardware'),
  crd('tinkerbell.org', 'workflows', 'Workflow'),
  crd('tinkerbell.org', 'templates', 'Template'),
  crd('bmc.tinkerbell.org', 'machines', 'Machine'),
  crd('bmc.tinkerbell.org', 'jobs', 'Job'),
  {
    group: 'coordination.k8s.io',
    version: 'v1',
    plural: 'leases',
    kind: 'Lease',
    custom: false,
    status: false,
    unconditionalUpdate: false,
    createOnUpdate: true,
    fieldLabels: META_FIELDS,
  },
  {
    group: '',
    version: 'v1',
    plural: 'secrets',
    kind: 'Secret',
    custom: false,
    status: false,
    unconditionalUpdate: true,
    createOnUpdate: false,
    fieldLabels: [...META_FIELDS, 'type'],
  },
];

export function apiVersionOf(def: ResourceDef): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}

/** schema.GroupResource.String(): `workflows.tinkerbell.org`, `secrets`. */
function groupResource(def: ResourceDef): string {
  return def.group ? `${def.plural}.${def.group}` : def.plural;
}

/** schema.GroupKind.String(): `Workflow.tinkerbell.org`, `Secret`. */
function groupKind(kind: string, group: string): string {
  return group ? `${kind}.${group}` : kind;
}

/** A failure the API server answers with a Status object. */
export class KubeStatusError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly details: JsonObject | undefined;
  constructor(code: number, reason: string, message: string, details?: JsonObject) {
    super(message);
    this.name = 'KubeStatusError';
    this.code = code;
    this.reason = reason;
    this.details = details;
  }

  /** metav1.Status as the server serializes it (empty fields omitted, as Go's omitempty). */
  status(): JsonObject {
    const s: JsonObject = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: this.message };
    if (this.reason) s.reason = this.reason;
    if (this.details) s.details = this.details;
    s.code = this.code;
    return s;
  }
}

function details(name: string, group: string, kind: string, extra: JsonObject = {}): JsonObject {
  const d: JsonObject = {};
  if (name) d.name = name;
  if (group) d.group = group;
  if (kind) d.kind = kind;
  return { ...d, ...extra };
}

export function badRequest(message: string): KubeStatusError {
  return new KubeStatusError(400, 'BadRequest', message);
}

function notFound(def: ResourceDef, name: string): KubeStatusError {
  return new KubeStatusError(404, 'NotFound', `${groupResource(def)} "${name}" not found`, details(name, def.group, def.plural));
}

/** errors.NewConflict; the caller's reason follows "Operation cannot be fulfilled on ...". */
export function conflict(def: ResourceDef, name: string, why: string): KubeStatusError {
  return new KubeStatusError(409, 'Conflict', `Operation cannot be fulfilled on ${groupResource(def)} "${name}": ${why}`, details(name, def.group, def.plural));
}

/** storage.OptimisticLockErrorMsg. */
export const OPTIMISTIC_LOCK = 'the object has been modified; please apply your changes to the latest version and try again';

/** One field.Error: `field`, and its ErrorBody (`Invalid value: "x": why`). */
interface FieldError {
  type: 'FieldValueInvalid' | 'FieldValueRequired' | 'FieldValueForbidden' | 'FieldValueNotSupported';
  field: string;
  body: string;
}

/** `value` as Go's field errors print it: strings quoted, numbers bare. */
function fieldInvalid(field: string, value: string, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, body: `Invalid value: ${value}: ${detail}` };
}

/** errors.NewInvalid: 422, `<GroupKind> "<name>" is invalid: <errors>`, one cause per error. */
function invalid(qualifiedKind: string, group: string, kind: string, name: string, errs: FieldError[]): KubeStatusError {
  const messages = errs.map((e) => `${e.field}: ${e.body}`);
  const aggregate = messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
  const causes = errs.map((e) => ({ reason: e.type, message: e.body, field: e.field }));
  return new KubeStatusError(422, 'Invalid', `${qualifiedKind} ${JSON.stringify(name)} is invalid: ${aggregate}`, details(name, group, kind, { causes }));
}

/** A body that does not decode into the resource's type. */
class DecodeError extends Error {}

function goType(value: Json): string {
  if (Array.isArray(value)) return 'array';
  if (value === null) return 'null';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}

/** Reads `obj.metadata`, creating it when absent (decode has checked that it is an object). */
function metaOf(obj: JsonObject): JsonObject {
  const m = obj.metadata;
  if (isObject(m)) return m;
  const fresh: JsonObject = {};
  obj.metadata = fresh;
  return fresh;
}

function stringMap(value: Json | undefined, field: string): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw new DecodeError(`json: cannot unmarshal ${goType(value)} into Go struct field ${field} of type map[string]string`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'string') throw new DecodeError(`json: cannot unmarshal ${goType(v)} into Go struct field ${field} of type string`);
    out[k] = v;
  }
  return out;
}

function finalizersOf(obj: JsonObject): string[] {
  const f = metaOf(obj).finalizers;
  return Array.isArray(f) ? f.filter((x): x is string => typeof x === 'string') : [];
}

/** metav1.Time: RFC 3339 to the second, UTC. */
function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const MICRO_TIME_LAYOUT = '2006-01-02T15:04:05.000000Z07:00';

/**
 * metav1.MicroTime.UnmarshalJSON parses with exactly six fractional digits (Go's `.000000`), so
 * JavaScript's `toISOString()` (three digits) is refused; it marshals back in UTC.
 */
function microTime(value: string): string {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(.*)$/.exec(value);
  const fail = (rest: string, elem: string) =>
    new DecodeError(
      `parsing time ${JSON.stringify(value)} as ${JSON.stringify(MICRO_TIME_LAYOUT)}: cannot parse ${JSON.stringify(rest)} as ${JSON.stringify(elem)}`,
    );
  if (!m) throw fail(value, '2006');
  const seconds = m[1] as string;
  const rest = m[2] as string;
  const frac = /^\.(\d{6})(.*)$/.exec(rest);
  if (!frac) throw fail(rest, '.000000');
  const digits = frac[1] as string;
  const zone = frac[2] as string;
  if (!/^(Z|[+-]\d{2}:\d{2})$/.test(zone)) throw fail(zone, 'Z07:00');
  const date = new Date(`${seconds}${zone}`);
  if (Number.isNaN(date.getTime())) throw fail(value, '2006');
  return `${date.toISOString().slice(0, 19)}.${digits}Z`;
}

/** Go's base64.StdEncoding (padding required): the offset it reports for a refused string, or undefined. */
function base64Error(s: string): number | undefined {
  const body = /^[A-Za-z0-9+/]*/.exec(s)?.[0].length ?? 0;
  const tail = s.slice(body);
  const stray = tail.search(/[^=]/);
  if (stray >= 0) return body + stray;
  return tail.length <= 2 && s.length % 4 === 0 ? undefined : s.length;
}

function int32Field(spec: JsonObject, field: string): void {
  const v = spec[field];
  if (v === undefined || v === null) return;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < -(2 ** 31) || v >= 2 ** 31) {
    throw new DecodeError(`json: cannot unmarshal ${goType(v)} into Go struct field LeaseSpec.spec.${field} of type int32`);
  }
}

/** The decoding a typed body goes through: field types, Secret conversion and defaults, MicroTime. */
function decodeFields(def: ResourceDef, obj: JsonObject): void {
  const m = obj.metadata;
  if (m !== undefined && m !== null && !isObject(m))
    throw new DecodeError(`json: cannot unmarshal ${goType(m)} into Go struct field .metadata of type v1.ObjectMeta`);
  const meta = metaOf(obj);
  stringMap(meta.labels, 'ObjectMeta.metadata.labels');
  stringMap(meta.annotations, 'ObjectMeta.metadata.annotations');
  if (def.plural === 'secrets') {
    const data = stringMapOrNull(obj.data);
    for (const value of Object.values(data)) {
      const at = value === null ? undefined : base64Error(value);
      if (at !== undefined) throw new DecodeError(`illegal base64 data at input byte ${at}`);
    }
    // The v1 → internal conversion merges stringData into data; stringData is never stored.
    for (const [key, value] of Object.entries(stringMap(obj.stringData, 'Secret.stringData'))) data[key] = Buffer.from(value, 'utf8').toString('base64');
    delete obj.stringData;
    if (Object.keys(data).length > 0) obj.data = data;
    else delete obj.data;
    if (!str(obj.type)) obj.type = 'Opaque';
  }
  if (def.plural === 'leases' && obj.spec !== undefined && obj.spec !== null) {
    const spec = obj.spec;
    if (!isObject(spec)) throw new DecodeError(`json: cannot unmarshal ${goType(spec)} into Go struct field Lease.spec of type v1.LeaseSpec`);
    for (const field of ['acquireTime', 'renewTime']) {
      const v = spec[field];
      if (v === undefined || v === null) continue;
      if (typeof v !== 'string') throw new DecodeError(`json: cannot unmarshal ${goType(v)} into Go struct field LeaseSpec.spec.${field} of type string`);
      spec[field] = microTime(v);
    }
    int32Field(spec, 'leaseDurationSeconds');
    int32Field(spec, 'leaseTransitions');
  }
}

function stringMapOrNull(value: Json | undefined): Record<string, string | null> {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw new DecodeError(`json: cannot unmarshal ${goType(value)} into Go struct field Secret.data of type map[string][]uint8`);
  const out: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v !== null && typeof v !== 'string') throw new DecodeError(`json: cannot unmarshal ${goType(v)} into Go struct field Secret.data of type []uint8`);
    out[k] = v;
  }
  return out;
}

/** A copy with apiVersion and kind first, as the server writes them. */
function withTypeMeta(def: ResourceDef, obj: JsonObject): JsonObject {
  const out: JsonObject = { apiVersion: apiVersionOf(def), kind: def.kind };
  for (const [k, v] of Object.entries(obj)) if (k !== 'apiVersion' && k !== 'kind') out[k] = v;
  return out;
}

function withoutMetadata(obj: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(obj)) if (k !== 'metadata') out[k] = v;
  return out;
}

/** Fields of ObjectMeta only the server sets: an update cannot change them. */
const SYSTEM_FIELDS = ['uid', 'creationTimestamp', 'generation', 'deletionTimestamp', 'deletionGracePeriodSeconds'];

const GENERATED_NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

export interface ListQuery {
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
  limit?: string | undefined;
  continue?: string | undefined;
}

export interface DeleteOptions {
  propagationPolicy?: string | undefined;
  orphanDependents?: boolean | undefined;
  preconditions?: { uid?: string | undefined; resourceVersion?: string | undefined } | undefined;
}

const MERGE_PATCH = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';
const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
const APPLY_PATCH = 'application/apply-patch+yaml';

/** Whether a strategic merge patch means the same as a merge patch: no lists, no `$` directives. */
function mergeEquivalent(patch: Json): boolean {
  if (Array.isArray(patch)) return false;
  if (!isObject(patch)) return true;
  return Object.entries(patch).every(([k, v]) => !k.startsWith('$') && mergeEquivalent(v));
}

const EXPIRED_CONTINUE =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/** How many paged-list snapshots are kept (older continue tokens answer 410 Expired, as after etcd compaction). */
const SNAPSHOTS_KEPT = 32;

export class KubeStore {
  /** The etcd revision: one counter for every object of every resource. */
  private revision = 1000;
  private readonly tables = new Map<ResourceDef, Map<string, JsonObject>>(RESOURCES.map((def) => [def, new Map()]));
  /** Paged lists read at one revision: `<resource>@<revision>` → every object then. */
  private readonly snapshots = new Map<string, JsonObject[]>();

  resolve(group: string, version: string, plural: string): ResourceDef | undefined {
    return RESOURCES.find((d) => d.group === group && d.version === version && d.plural === plural);
  }

  private table(def: ResourceDef): Map<string, JsonObject> {
    return this.tables.get(def) as Map<string, JsonObject>;
  }

  private nextVersion(): string {
    return String(++this.revision);
  }

  get(def: ResourceDef, ns: string, name: string): JsonObject {
    const obj = this.table(def).get(`${ns}/${name}`);
    if (!obj) throw notFound(def, name);
    return structuredClone(obj);
  }

  list(def: ResourceDef, ns: string | undefined, query: ListQuery): JsonObject {
    let labels: Matcher | undefined;
    let fields: Matcher | undefined;
    try {
      if (query.labelSelector) labels = parseLabelSelector(query.labelSelector);
      if (query.fieldSelector) fields = parseFieldSelector(query.fieldSelector, def.fieldLabels);
    } catch (err) {
      if (err instanceof SelectorError) throw badRequest(err.message);
      throw err;
    }
    let limit = 0;
    if (query.limit !== undefined) {
      if (!/^[+-]?\d+$/.test(query.limit)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(query.limit)}: invalid syntax`);
      limit = Number(query.limit);
    }

    let revision = this.revision;
    let start = '';
    let source = [...this.table(def).values()];
    if (query.continue) {
      const token = decodeContinue(query.continue);
      const snapshot = this.snapshots.get(`${groupResource(def)}@${token.rv}`);
      if (!snapshot) throw new KubeStatusError(410, 'Expired', EXPIRED_CONTINUE);
      [revision, start, source] = [token.rv, token.start, snapshot];
    }

    const keyOf = (o: JsonObject) => `${str(metaOf(o).namespace)}/${str(metaOf(o).name)}`;
    const inScope = source.filter((o) => (ns === undefined || metaOf(o).namespace === ns) && keyOf(o) > start).sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1));
    const selected = inScope.filter((o) => {
      const m = metaOf(o);
      const fieldValues: Record<string, string> = { 'metadata.name': str(m.name) ?? '', 'metadata.namespace': str(m.namespace) ?? '' };
      if (def.plural === 'secrets') fieldValues.type = str(o.type) ?? '';
      return (!labels || labels(stringMap(m.labels, 'labels'))) && (!fields || fields(fieldValues));
    });

    const metadata: JsonObject = { resourceVersion: String(revision) };
    let items = selected;
    if (limit > 0 && selected.length > limit) {
      items = selected.slice(0, limit);
      const last = keyOf(items[items.length - 1] as JsonObject);
      metadata.continue = Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: revision, start: `${last}\u0000` })).toString('base64');
      // The count is known only when nothing filters the keys (etcd3 store GetList).
      if (!labels && !fields) metadata.remainingItemCount = inScope.filter((o) => keyOf(o) > last).length;
      this.keepSnapshot(`${groupResource(def)}@${revision}`, source);
    }
    return {
      apiVersion: apiVersionOf(def),
      kind: `${def.kind}List`,
      metadata,
      // Typed lists (SecretList, LeaseList) carry no apiVersion/kind on their items; unstructured ones do.
      items: items.map((o) => {
        const copy = structuredClone(o);
        if (!def.custom) {
          delete copy.apiVersion;
          delete copy.kind;
        }
        return copy;
      }),
    };
  }

  private keepSnapshot(key: string, source: JsonObject[]): void {
    if (this.snapshots.has(key)) return;
    this.snapshots.set(
      key,
      source.map((o) => structuredClone(o)),
    );
    const oldest = this.snapshots.keys().next().value;
    if (this.snapshots.size > SNAPSHOTS_KEPT && oldest !== undefined) this.snapshots.delete(oldest);
  }

  create(def: ResourceDef, ns: string, body: Json): JsonObject {
    const obj = this.decodeRequest(def, body);
    const namespace = str(metaOf(obj).namespace);
    if (namespace && namespace !== ns) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    return this.insert(def, ns, obj);
  }

  /** store.Create after decoding: generateName, validation, then the storage's own checks. */
  private insert(def: ResourceDef, ns: string, obj: JsonObject): JsonObject {
    const m = metaOf(obj);
    m.namespace = ns;
    const table = this.table(def);
    const generateName = str(m.generateName) ?? '';
    let name = str(m.name) ?? '';
    if (name === '' && generateName !== '') {
      do {
        name = generateName.slice(0, 58) + Array.from({ length: 5 }, () => GENERATED_NAME_CHARS[randomInt(GENERATED_NAME_CHARS.length)]).join('');
      } while (table.has(`${ns}/${name}`));
      m.name = name;
    }
    const errs: FieldError[] = [];
    if (name === '') errs.push({ type: 'FieldValueRequired', field: 'metadata.name', body: 'Required value: name or generateName is required' });
    if (generateName !== '') {
      // A prefix may end in '-': validated as a name with that dash masked.
      errs.push(...isDns1123Subdomain(generateName.replace(/-$/, 'a')).map((msg) => fieldInvalid('metadata.generateName', JSON.stringify(generateName), msg)));
    }
    if (name !== '') errs.push(...isDns1123Subdomain(name).map((msg) => fieldInvalid('metadata.name', JSON.stringify(name), msg)));
    errs.push(...validate(def, obj, undefined));
    if (errs.length > 0) throw invalid(groupKind(def.kind, def.group), def.group, def.kind, name, errs);
    if (str(m.resourceVersion)) {
      // etcd3 store.Create refuses it with a plain error, which the handler answers as a 500.
      throw new KubeStatusError(500, '', 'resourceVersion should not be set on objects to be created');
    }
    if (table.has(`${ns}/${name}`)) {
      throw new KubeStatusError(409, 'AlreadyExists', `${groupResource(def)} "${name}" already exists`, details(name, def.group, def.plural));
    }
    m.uid = randomUUID();
    m.creationTimestamp = now();
    if (def.custom) m.generation = 1;
    else delete m.generation;
    delete m.deletionTimestamp;
    delete m.deletionGracePeriodSeconds;
    if (def.status) delete obj.status;
    m.resourceVersion = this.nextVersion();
    const stored = withTypeMeta(def, obj);
    table.set(`${ns}/${name}`, stored);
    return structuredClone(stored);
  }

  /** PUT: to the resource, or with `status` to its /status subresource. */
  replace(def: ResourceDef, ns: string, name: string, body: Json, status: boolean): { object: JsonObject; created: boolean } {
    return this.update(def, ns, name, this.decodeRequest(def, body), status, !status && def.createOnUpdate);
  }

  /** PATCH: the patch applies to the stored object, and the result is written as a PUT would be. */
  patch(def: ResourceDef, ns: string, name: string, contentType: string, patch: Json, status: boolean): JsonObject {
    const accepted = def.custom ? [JSON_PATCH, MERGE_PATCH, APPLY_PATCH] : [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH, APPLY_PATCH];
    if (!accepted.includes(contentType)) {
      throw new KubeStatusError(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
      );
    }
    if (contentType === APPLY_PATCH) throw new KubeStatusError(415, 'UnsupportedMediaType', 'fake-kube: server-side apply is not implemented');
    const existing = this.table(def).get(`${ns}/${name}`);
    if (!existing) throw notFound(def, name);
    let patched: Json;
    if (contentType === JSON_PATCH) {
      try {
        patched = applyJsonPatch(existing, decodeJsonPatch(patch));
      } catch (err) {
        if (!(err instanceof PatchError)) throw err;
        if (err.kind === 'decode') throw badRequest(err.message);
        // errors.NewGenericServerResponse(422, ...) keeps its generic message, not the patch library's.
        throw new KubeStatusError(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
      }
    } else {
      if (!isObject(patch)) throw badRequest('Invalid JSON Patch');
      if (contentType === STRATEGIC_MERGE_PATCH && !mergeEquivalent(patch)) {
        throw new KubeStatusError(415, 'UnsupportedMediaType', 'fake-kube: strategic merge patches with lists or $ directives are not implemented');
      }
      patched = mergePatch(existing, patch);
    }
    return this.update(def, ns, name, this.decodePatched(def, patched), status, false).object;
  }

  /** A POST or PUT body: type meta checked (CRs strictly), then decoded as the typed object. */
  private decodeRequest(def: ResourceDef, body: Json): JsonObject {
    if (!isObject(body)) {
      throw badRequest(
        `the object provided is unrecognized (must be of type ${def.kind}): couldn't get version/kind; json parse error: json: cannot unmarshal ${goType(body)} into Go value of type struct`,
      );
    }
    const obj = structuredClone(body);
    const apiVersion = str(obj.apiVersion) ?? '';
    const kind = str(obj.kind) ?? '';
    const versionMismatch = () => badRequest(`the API version in the data (${apiVersion}) does not match the expected API version (${apiVersionOf(def)})`);
    if (def.custom) {
      // The unstructured decoder ignores the endpoint's kind: the body must name it.
      if (kind === '')
        throw badRequest(`the object provided is unrecognized (must be of type ${def.kind}): Object 'Kind' is missing in '${JSON.stringify(body)}'`);
      if (apiVersion !== apiVersionOf(def)) throw versionMismatch();
      if (kind !== def.kind) {
        const name = isObject(obj.metadata) ? (str(obj.metadata.name) ?? '') : '';
        throw invalid(groupKind(kind, def.group), def.group, kind, name, [fieldInvalid('kind', JSON.stringify(kind), `must be ${def.kind}`)]);
      }
    } else {
      // A typed decoder defaults a missing apiVersion/kind from the endpoint.
      if (apiVersion !== '' && apiVersion !== apiVersionOf(def)) throw versionMismatch();
      if (kind !== '' && kind !== def.kind) {
        throw badRequest(
          `${kind} in version "${def.version}" cannot be handled as a ${def.kind}: no kind "${kind}" is registered for version "${apiVersionOf(def)}"`,
        );
      }
    }
    try {
      decodeFields(def, obj);
    } catch (err) {
      if (err instanceof DecodeError) throw badRequest(`${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${err.message}`);
      throw err;
    }
    return withTypeMeta(def, obj);
  }

  /** A patched object that no longer decodes is refused as an invalid `patch` (jsonPatcher.applyPatchToCurrentObject). */
  private decodePatched(def: ResourceDef, patched: Json): JsonObject {
    const refuse = (why: string) => invalid('', '', '', '', [fieldInvalid('patch', JSON.stringify(JSON.stringify(patched)), why)]);
    if (!isObject(patched)) throw refuse(`json: cannot unmarshal ${goType(patched)} into an object`);
    const obj = structuredClone(patched);
    if (obj.apiVersion !== apiVersionOf(def) || obj.kind !== def.kind) throw refuse(`the object must stay a ${apiVersionOf(def)} ${def.kind}`);
    try {
      decodeFields(def, obj);
    } catch (err) {
      if (err instanceof DecodeError) throw refuse(err.message);
      throw err;
    }
    return obj;
  }

  /** store.Update: name check, preconditions, the strategy's PrepareForUpdate, validation, no-op detection. */
  private update(def: ResourceDef, ns: string, name: string, obj: JsonObject, status: boolean, allowCreate: boolean): { object: JsonObject; created: boolean } {
    const m = metaOf(obj);
    const objName = str(m.name) ?? '';
    if (objName !== name) throw badRequest(`the name of the object (${objName}) does not match the name on the URL (${name})`);
    const objNs = str(m.namespace) ?? '';
    if (objNs !== '' && objNs !== ns) throw badRequest(`the namespace of the object (${objNs}) does not match the namespace on the request (${ns})`);
    m.namespace = ns;

    const table = this.table(def);
    const key = `${ns}/${name}`;
    const existing = table.get(key);
    if (!existing) {
      if (!allowCreate) throw notFound(def, name);
      delete m.resourceVersion;
      return { object: this.insert(def, ns, obj), created: true };
    }
    const em = metaOf(existing);
    const current = str(em.resourceVersion) as string;
    const uid = str(m.uid);
    if (uid && uid !== em.uid) throw conflict(def, name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${str(em.uid)}`);
    const rv = str(m.resourceVersion) ?? '';
    if (rv === '' || rv === '0') {
      if (!def.unconditionalUpdate) {
        // Go prints the uint64 zero with %#v.
        throw invalid(groupResource(def), def.group, def.plural, name, [fieldInvalid('metadata.resourceVersion', '0x0', 'must be specified for an update')]);
      }
    } else if (!/^\d+$/.test(rv)) {
      throw invalid(groupResource(def), def.group, def.plural, name, [
        fieldInvalid('resourceVersion', JSON.stringify(rv), `strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`),
      ]);
    } else if (rv !== current) {
      throw conflict(def, name, OPTIMISTIC_LOCK);
    }

    let next: JsonObject;
    if (status) {
      // statusStrategy.PrepareForUpdate: everything from the stored object but .status.
      next = structuredClone(existing);
      if (Object.hasOwn(obj, 'status')) next.status = obj.status as Json;
      else delete next.status;
    } else {
      next = obj;
      if (def.status) {
        if (Object.hasOwn(existing, 'status')) next.status = structuredClone(existing.status as Json);
        else delete next.status;
      }
      const nm = metaOf(next);
      for (const f of SYSTEM_FIELDS) {
        if (Object.hasOwn(em, f)) nm[f] = em[f] as Json;
        else delete nm[f];
      }
      if (def.custom && !deepEqual(withoutMetadata(next), withoutMetadata(existing))) nm.generation = (em.generation as number) + 1;
    }
    const nm = metaOf(next);
    nm.resourceVersion = current;
    const errs = validate(def, next, existing);
    if (errs.length > 0) throw invalid(groupKind(def.kind, def.group), def.group, def.kind, name, errs);
    if (deepEqual(next, existing)) return { object: structuredClone(existing), created: false };
    nm.resourceVersion = this.nextVersion();
    const stored = withTypeMeta(def, next);
    // Taking the last finalizer off an object being deleted deletes it (errEmptiedFinalizers).
    if (nm.deletionTimestamp !== undefined && finalizersOf(next).length === 0) table.delete(key);
    else table.set(key, stored);
    return { object: structuredClone(stored), created: false };
  }

  delete(def: ResourceDef, ns: string, name: string, options: DeleteOptions): JsonObject {
    const policy = options.propagationPolicy ?? (options.orphanDependents === true ? 'Orphan' : undefined);
    const policies = ['Foreground', 'Background', 'Orphan'];
    if (policy !== undefined && !policies.includes(policy)) {
      throw invalid('DeleteOptions.meta.k8s.io', 'meta.k8s.io', 'DeleteOptions', '', [
        {
          type: 'FieldValueNotSupported',
          field: 'propagationPolicy',
          body: `Unsupported value: ${JSON.stringify(policy)}: supported values: ${[...policies, 'nil'].map((p) => JSON.stringify(p)).join(', ')}`,
        },
      ]);
    }
    const table = this.table(def);
    const key = `${ns}/${name}`;
    const existing = table.get(key);
    if (!existing) throw notFound(def, name);
    const em = metaOf(existing);
    const pre = options.preconditions;
    if (pre?.uid !== undefined && pre.uid !== em.uid) {
      throw conflict(def, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${str(em.uid)}`);
    }
    if (pre?.resourceVersion !== undefined && pre.resourceVersion !== em.resourceVersion) {
      throw conflict(
        def,
        name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${str(em.resourceVersion)}`,
      );
    }

    // Foreground and Orphan deletions wait on a finalizer the garbage collector owns.
    const gcFinalizer = policy === 'Foreground' ? 'foregroundDeletion' : policy === 'Orphan' ? 'orphan' : undefined;
    const finalizers = finalizersOf(existing);
    if (finalizers.length === 0 && gcFinalizer === undefined) {
      table.delete(key);
      // No ReturnDeletedObject on these stores: the answer is a Status naming what was deleted.
      return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: details(name, def.group, def.plural, { uid: str(em.uid) ?? '' }) };
    }
    const marked = structuredClone(existing);
    const mm = metaOf(marked);
    if (mm.deletionTimestamp === undefined) {
      // markAsDeleting: generation moves when deletion starts.
      if (typeof mm.generation === 'number') mm.generation += 1;
      mm.deletionTimestamp = now();
      mm.deletionGracePeriodSeconds = 0;
    }
    if (gcFinalizer !== undefined && !finalizers.includes(gcFinalizer)) mm.finalizers = [...finalizers, gcFinalizer];
    if (deepEqual(marked, existing)) return structuredClone(existing);
    mm.resourceVersion = this.nextVersion();
    const answer = structuredClone(marked);
    if (gcFinalizer === undefined) {
      table.set(key, marked);
    } else {
      // The garbage collector, with no dependents here, takes its finalizer off at once.
      const rest = finalizers.filter((f) => f !== gcFinalizer);
      if (rest.length === 0) {
        table.delete(key);
      } else {
        mm.finalizers = rest;
        mm.resourceVersion = this.nextVersion();
        table.set(key, marked);
      }
    }
    return answer;
  }

  /** DELETE on a collection: the matching objects as listed, each then deleted. */
  deleteCollection(def: ResourceDef, ns: string, query: ListQuery, options: DeleteOptions): JsonObject {
    const listed = this.list(def, ns, { labelSelector: query.labelSelector, fieldSelector: query.fieldSelector });
    const items = listed.items as JsonObject[];
    for (const item of items) {
      const name = str(metaOf(item).name) as string;
      if (this.table(def).has(`${ns}/${name}`)) this.delete(def, ns, name, { ...options, preconditions: undefined });
    }
    return listed;
  }

  /** Stored objects of one resource (all namespaces unless `ns`), by namespace and name. */
  objects(group: string, plural: string, ns?: string): JsonObject[] {
    const def = RESOURCES.find((d) => d.group === group && d.plural === plural);
    if (!def) throw new Error(`fake-kube: no resource ${plural} in group "${group}"`);
    return [...this.table(def).values()]
      .filter((o) => ns === undefined || metaOf(o).namespace === ns)
      .sort((a, b) => (`${str(metaOf(a).namespace)}/${str(metaOf(a).name)}` < `${str(metaOf(b).namespace)}/${str(metaOf(b).name)}` ? -1 : 1))
      .map((o) => structuredClone(o));
  }

  /**
   * Writes `input` as another client would (Tinkerbell, Rufio, an operator): spec and status
   * together, unconditionally, skipping validation. System fields are kept or filled, the
   * generation moves when anything but metadata and status changes, resourceVersion when anything does.
   */
  put(input: JsonObject): JsonObject {
    const def = RESOURCES.find((d) => apiVersionOf(d) === input.apiVersion && d.kind === input.kind);
    if (!def) throw new Error(`fake-kube: no resource for ${String(input.apiVersion)} ${String(input.kind)}`);
    const obj = structuredClone(input);
    decodeFields(def, obj);
    const m = metaOf(obj);
    const ns = str(m.namespace);
    const name = str(m.name);
    if (!ns || !name) throw new Error('fake-kube: put needs metadata.namespace and metadata.name');
    const table = this.table(def);
    const existing = table.get(`${ns}/${name}`);
    if (!existing) {
      m.uid = randomUUID();
      m.creationTimestamp = now();
      if (def.custom) m.generation = 1;
    } else {
      const em = metaOf(existing);
      for (const f of SYSTEM_FIELDS) {
        if (Object.hasOwn(em, f)) m[f] = em[f] as Json;
        else delete m[f];
      }
      const spec = (o: JsonObject) => {
        const rest = withoutMetadata(o);
        delete rest.status;
        return rest;
      };
      if (def.custom && !deepEqual(spec(obj), spec(existing))) m.generation = (em.generation as number) + 1;
      m.resourceVersion = em.resourceVersion as Json;
      if (deepEqual(obj, existing)) return structuredClone(existing);
    }
    m.resourceVersion = this.nextVersion();
    table.set(`${ns}/${name}`, obj);
    return structuredClone(obj);
  }
}

function decodeContinue(token: string): { rv: number; start: string } {
  let parsed: Json;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as Json;
  } catch {
    throw badRequest('continue key is not valid: illegal base64 data or JSON');
  }
  if (!isObject(parsed) || parsed.v !== 'meta.k8s.io/v1' || typeof parsed.rv !== 'number' || typeof parsed.start !== 'string') {
    throw badRequest('continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  return { rv: parsed.rv, start: parsed.start.replace(/\u0000$/, '') };
}

/** ValidateObjectMeta's label and annotation rules, plus each resource's own. */
function validate(def: ResourceDef, obj: JsonObject, old: JsonObject | undefined): FieldError[] {
  const m = metaOf(obj);
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(stringMap(m.labels, 'labels'))) {
    errs.push(...isQualifiedName(k).map((msg) => fieldInvalid('metadata.labels', JSON.stringify(k), msg)));
    errs.push(...isValidLabelValue(v).map((msg) => fieldInvalid('metadata.labels', JSON.stringify(v), msg)));
  }
  for (const k of Object.keys(stringMap(m.annotations, 'annotations'))) {
    errs.push(...isQualifiedName(k.toLowerCase()).map((msg) => fieldInvalid('metadata.annotations', JSON.stringify(k), msg)));
  }
  if (old && metaOf(old).deletionTimestamp !== undefined) {
    const added = finalizersOf(obj).filter((f) => !finalizersOf(old).includes(f));
    if (added.length > 0) {
      errs.push({
        type: 'FieldValueForbidden',
        field: 'metadata.finalizers',
        body: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`,
      });
    }
  }
  if (def.plural === 'leases' && isObject(obj.spec)) {
    const { leaseDurationSeconds: duration, leaseTransitions: transitions } = obj.spec;
    if (typeof duration === 'number' && duration <= 0) errs.push(fieldInvalid('spec.leaseDurationSeconds', String(duration), 'must be greater than 0'));
    if (typeof transitions === 'number' && transitions < 0) {
      errs.push(fieldInvalid('spec.leaseTransitions', String(transitions), 'must be greater than or equal to 0'));
    }
  }
  if (def.plural === 'secrets' && old && old.type !== obj.type) errs.push(fieldInvalid('type', JSON.stringify(obj.type), 'field is immutable'));
  return errs;
}

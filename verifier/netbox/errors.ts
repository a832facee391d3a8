import type { RegisteredCode } from '../../shared/error-codes.js';
import { FleetError } from '../../shared/errors.js';

export type NetBoxErrorCode = Extract<RegisteredCode, `netbox-${string}`>;

/**
 * The NetBox client's codes by name (shared/error-codes.ts says what each means). A caller switches
 * on `code`; the message is for a person and never holds the token.
 */
export const NETBOX_ERROR_CODES = {
  badRequest: 'netbox-bad-request',
  forbidden: 'netbox-forbidden',
  notFound: 'netbox-not-found',
  unreachable: 'netbox-unreachable',
  error: 'netbox-error',
  filterRefused: 'netbox-filter-refused',
  configInvalid: 'netbox-config-invalid',
} as const satisfies Record<string, NetBoxErrorCode>;

/** What NetBox said about a refused request, flattened: `custom_fields.desired_action` → messages. */
export type FieldErrors = Record<string, string[]>;

export interface NetBoxErrorDetails {
  /** HTTP status of the last answer, when there was one. */
  status?: number;
  /** `GET`, `PATCH`, `POST`. */
  method?: string;
  /** The endpoint path with its query, relative to `/api/` (`dcim/devices/7/`). Never holds the token. */
  path?: string;
  /** How many times the request was sent. */
  attempts?: number;
  /** 400 only: NetBox's field errors. Keys `__all__` and `non_field_errors` are object-level errors. */
  fieldErrors?: FieldErrors;
}

export class NetBoxError extends FleetError {
  override readonly code: NetBoxErrorCode;
  readonly status: number | undefined;
  readonly method: string | undefined;
  readonly path: string | undefined;
  readonly attempts: number | undefined;
  readonly fieldErrors: FieldErrors | undefined;

  constructor(code: NetBoxErrorCode, message: string, details: NetBoxErrorDetails = {}, cause?: SanitizedCause) {
    super(code, message, cause === undefined ? undefined : { cause });
    this.name = 'NetBoxError';
    this.code = code;
    this.status = details.status;
    this.method = details.method;
    this.path = details.path;
    this.attempts = details.attempts;
    this.fieldErrors = details.fieldErrors;
  }
}

/**
 * The low-level failure behind an error, reduced to its name, code and (redacted) message, so that no
 * request object, header or socket ever hangs off a thrown error.
 */
export interface SanitizedCause {
  name: string;
  code?: string;
  message: string;
}

const OBJECT_LEVEL_KEYS = new Set(['__all__', 'non_field_errors', 'detail']);

/**
 * Flattens a DRF/NetBox error body into `field → messages`. NetBox answers `{field: [msg]}` for
 * serializer fields, `{custom_fields: {name: msg}}` for unknown custom fields (4.5.8+),
 * `{__all__: [msg]}` for model validation of custom field values, `{field: [msg]}` for other model
 * validation (`primary_mac_address`, `assigned_object_id`), `{non_field_errors: [...]}`
 * for serializer-level checks, and `{detail: msg}` for everything else.
 */
export function flattenFieldErrors(body: unknown, prefix = ''): FieldErrors {
  const out: FieldErrors = {};
  const add = (key: string, message: string): void => {
    (out[key] ??= []).push(message);
  };
  const walk = (value: unknown, key: string): void => {
    if (typeof value === 'string') add(key || 'detail', value);
    else if (typeof value === 'number' || typeof value === 'boolean') add(key || 'detail', String(value));
    else if (Array.isArray(value)) {
      value.forEach((item, i) => {
        // A list of strings is the messages of one field; a list of objects is per-item (bulk) errors.
        if (item !== null && typeof item === 'object' && !Array.isArray(item)) walk(item, key ? `${key}[${i}]` : `[${i}]`);
        else walk(item, key);
      });
    } else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) walk(v, key ? `${key}.${k}` : k);
    }
  };
  walk(body, prefix);
  return out;
}

/** `custom_fields.bogus: Custom field 'bogus' does not exist …; Invalid value for custom field …` */
export function describeFieldErrors(errors: FieldErrors): string {
  const parts: string[] = [];
  for (const [field, messages] of Object.entries(errors)) {
    for (const message of messages) parts.push(OBJECT_LEVEL_KEYS.has(field) ? message : `${field}: ${message}`);
  }
  return parts.join('; ');
}

/** NetBox's object permission actions. */
export type PermissionAction = 'view' | 'add' | 'change' | 'delete';

/** netbox/api/authentication.py TokenPermissions.perms_map: the action each method needs. */
const METHOD_ACTIONS: Record<string, PermissionAction> = {
  GET: 'view',
  HEAD: 'view',
  OPTIONS: 'view',
  POST: 'add',
  PUT: 'change',
  PATCH: 'change',
  DELETE: 'delete',
};

/** The object type (`app_label.model`) behind each endpoint fleet uses. */
const ENDPOINT_OBJECT_TYPES: Record<string, string> = {
  'dcim/devices': 'dcim.device',
  'dcim/interfaces': 'dcim.interface',
  'dcim/mac-addresses': 'dcim.macaddress',
  'dcim/cables': 'dcim.cable',
  'extras/journal-entries': 'extras.journalentry',
  'core/object-changes': 'core.objectchange',
  'ipam/ip-addresses': 'ipam.ipaddress',
};

/** NetBox's answer when a token's user lacks an object permission (or the token is read-only). */
export const NETBOX_NO_PERMISSION = 'You do not have permission to perform this action.';

/**
 * The object permission a request needs: `PATCH dcim/devices/3/` → change on dcim.device. Undefined
 * for an endpoint that needs none or that fleet does not know (`status/`).
 */
export function requiredPermission(method: string, path: string): { action: PermissionAction; objectType: string } | undefined {
  const action = METHOD_ACTIONS[method.toUpperCase()];
  const endpoint = path
    .split(/[?#]/)[0]!
    .replace(/^\/?(api\/)?/, '')
    .split('/')
    .slice(0, 2)
    .join('/');
  const objectType = ENDPOINT_OBJECT_TYPES[endpoint];
  return action === undefined || objectType === undefined ? undefined : { action, objectType };
}

/**
 * The message of a 401/403. When NetBox says "You do not have permission…", it names the permission
 * the token's user lacks (from the method and the endpoint); otherwise NetBox refused the token itself
 * (unknown, disabled, expired, not allowed from this address), and `said` says which. `path` and `said`
 * must already be free of the token (the client's paths never hold it; `said` is redacted).
 */
export function forbiddenMessage(method: string, path: string, status: number, said: string): string {
  const needed = requiredPermission(method, path);
  const write = !['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase());
  if (said.includes(NETBOX_NO_PERMISSION)) {
    const readOnly = write ? ', or the token is read-only (write_enabled false)' : '';
    if (needed) {
      return (
        `NetBox refused ${method} ${path} (${status}): the token's user needs the ${needed.action} permission on ` +
        `${needed.objectType}${readOnly} (NetBox said: ${said})`
      );
    }
    return `NetBox refused ${method} ${path} (${status}: ${said}): the token's user lacks a permission${readOnly}`;
  }
  return (
    `NetBox refused the token (${status} on ${method} ${path}: ${said}); check that the token exists, is enabled, ` +
    'has not expired and is allowed from this address'
  );
}

import { NETBOX_ERROR_CODES, NetBoxError } from './errors.js';

/**
 * NetBox API tokens. v1 (every NetBox): 40 hexadecimal characters, sent as `Authorization: Token <t>`.
 * v2 (NetBox 4.5+): `nbt_<key>.<secret>`, sent as `Authorization: Bearer nbt_<key>.<secret>`; NetBox
 * stores only an HMAC of the secret. NetBox itself picks the version from the `nbt_` prefix, not
 * from the keyword (netbox/netbox/api/authentication.py), but the keyword we send matches the docs.
 */
export interface ParsedToken {
  version: 1 | 2;
  /** The value of the `Authorization` header. */
  header: string;
  /** Replaces every copy of the token (and of a v2 secret) in `text` with `[redacted]`. */
  redact(text: string): string;
}

const V1 = /^[0-9a-fA-F]{40}$/;
/** users/constants.py: TOKEN_PREFIX = 'nbt_', key and secret from ascii letters and digits. */
const V2 = /^nbt_([A-Za-z0-9]+)\.([A-Za-z0-9]+)$/;

export const REDACTED = '[redacted]';

/** Accepts a token as read from a file or an environment variable (surrounding white space is dropped). */
export function parseToken(raw: string): ParsedToken {
  if (typeof raw !== 'string') {
    throw new NetBoxError(NETBOX_ERROR_CODES.configInvalid, 'the NetBox token is missing (expected a string)');
  }
  const token = raw.trim();
  if (V1.test(token)) {
    return { version: 1, header: `Token ${token}`, redact: redactor([token]) };
  }
  const v2 = V2.exec(token);
  if (v2) {
    return { version: 2, header: `Bearer ${token}`, redact: redactor([token, v2[2] ?? token]) };
  }
  // Never echo the value: it may be a real token with a stray character.
  const hint = token.length === 0 ? 'it is empty' : `it is ${token.length} characters long`;
  throw new NetBoxError(
    NETBOX_ERROR_CODES.configInvalid,
    `the NetBox token is neither a v1 token (40 hexadecimal characters) nor a v2 token (nbt_<key>.<secret>); ${hint}`,
  );
}

/** Builds the token from a `POST /api/users/tokens/provision/` answer of NetBox 4.5+ (`key` + `token`). */
export function tokenFromProvisionResponse(body: unknown): string {
  const b = body as { version?: unknown; key?: unknown; token?: unknown } | null;
  if (b === null || typeof b !== 'object') {
    throw new NetBoxError(NETBOX_ERROR_CODES.error, 'the token provisioning answer is not a JSON object');
  }
  const version = typeof b.version === 'object' && b.version !== null ? (b.version as { value?: unknown }).value : b.version;
  if ((version === 2 || version === undefined) && typeof b.key === 'string' && typeof b.token === 'string' && b.token) {
    return `nbt_${b.key}.${b.token}`;
  }
  if (typeof b.key === 'string' && V1.test(b.key)) return b.key; // v1 / pre-4.5 answer: the key is the token
  if (typeof b.token === 'string' && V1.test(b.token)) return b.token;
  throw new NetBoxError(NETBOX_ERROR_CODES.error, 'the token provisioning answer holds no usable token (expected key and token)');
}

function redactor(secrets: string[]): (text: string) => string {
  const needles = [...new Set(secrets.filter((s) => s.length >= 8))].sort((a, b) => b.length - a.length);
  // Case-insensitive: a proxy or NetBox may echo a hex token in another case.
  const pattern = new RegExp(needles.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'gi');
  return (text: string) => (needles.length === 0 ? text : text.replace(pattern, REDACTED));
}

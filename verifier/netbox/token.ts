import { NETBOX_ERROR_CODES, NetBoxError } from './errors.js';

/**
 * NetBox API tokens. v1 (every NetBox): 40 ASCII letters and digits, sent as `Authorization: Token <t>`.
 * Before 4.5 NetBox generated them as 40 hexadecimal characters; 4.5 generates them from
 * users/constants.py TOKEN_CHARSET = ascii_letters + digits (TOKEN_DEFAULT_LENGTH = 40), and accepts them.
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

/** 40 ASCII letters and digits: hex (pre-4.5 and given tokens) or NetBox 4.5's generated ones. */
const V1 = /^[A-Za-z0-9]{40}$/;
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
    `the NetBox token is neither a v1 token (40 letters and digits) nor a v2 token (nbt_<key>.<secret>); ${hint}`,
  );
}

/**
 * Builds the token from a `POST /api/users/tokens/provision/` answer:
 * - v2 (NetBox 4.5+, `version: 2`, the default): `nbt_<key>.<token>`; the secret is in `token` only in
 *   this answer.
 * - v1 of NetBox 4.5+ (`version: 1`, `key: null`): the plaintext token is in `token`.
 * - before 4.5 (no `version`, no `token`): the key is the token.
 * The version may come as a number or as `{value, label}`.
 */
export function tokenFromProvisionResponse(body: unknown): string {
  const b = body as { version?: unknown; key?: unknown; token?: unknown } | null;
  if (b === null || typeof b !== 'object' || Array.isArray(b)) {
    throw new NetBoxError(NETBOX_ERROR_CODES.error, 'the token provisioning answer is not a JSON object');
  }
  const version = typeof b.version === 'object' && b.version !== null ? (b.version as { value?: unknown }).value : b.version;
  const key = typeof b.key === 'string' && b.key ? b.key : undefined;
  const token = typeof b.token === 'string' && b.token ? b.token : undefined;
  if (version === 2 || (version === undefined && key !== undefined && token !== undefined)) {
    if (key !== undefined && token !== undefined) return `nbt_${key}.${token}`;
    // Never fall back to the bare secret: without its key it authenticates nothing.
    throw new NetBoxError(NETBOX_ERROR_CODES.error, 'the v2 token provisioning answer holds no usable token (expected key and token)');
  }
  if (version === 1 || version === undefined) {
    if (token !== undefined && V1.test(token)) return token; // NetBox 4.5+ v1: key is null, the token is in `token`
    if (key !== undefined && V1.test(key)) return key; // pre-4.5 answer: the key is the token
  }
  throw new NetBoxError(
    NETBOX_ERROR_CODES.error,
    'the token provisioning answer holds no usable token (expected key and token for v2, or a 40-character token for v1)',
  );
}

function redactor(secrets: string[]): (text: string) => string {
  const needles = [...new Set(secrets.filter((s) => s.length >= 8))].sort((a, b) => b.length - a.length);
  // Case-insensitive (over-redacting is harmless): a proxy or NetBox may echo a token in another case.
  const pattern = new RegExp(needles.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'gi');
  return (text: string) => (needles.length === 0 ? text : text.replace(pattern, REDACTED));
}

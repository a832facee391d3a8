/**
 * When to send a NetBox request again, and how long to wait first.
 *
 * Only failures that say nothing about the request's effect are retried, and only when sending the
 * request twice is harmless:
 * - a 5xx answer or a lost connection / timeout: GET and PATCH (fleet's PATCHes set absolute values,
 *   so a second one changes nothing, and NetBox skips empty changelog records);
 * - a POST only when the connection was never made (refused, no route, DNS): NetBox cannot have
 *   seen it. A POST that got a 5xx, a reset or no answer in time may have created its object, and
 *   is never sent twice.
 * The waits grow exponentially with jitter, each capped, and all together bounded.
 */
export interface BackoffOptions {
  /** First wait, before jitter. Default 250 ms. */
  baseMs?: number;
  /** Cap on one wait. Default 4 s. */
  maxMs?: number;
  /** Cap on the sum of the waits of one request; a retry that would exceed it is not made. Default 15 s. */
  totalMs?: number;
}

export interface Backoff {
  readonly baseMs: number;
  readonly maxMs: number;
  readonly totalMs: number;
  /** The wait before retry number `retry` (1-based): base·2^(retry-1), capped, times a jitter in [0.5, 1). */
  delay(retry: number): number;
}

export function makeBackoff(options: BackoffOptions = {}, random: () => number = Math.random): Backoff {
  const baseMs = nonNegative(options.baseMs, 250);
  const maxMs = nonNegative(options.maxMs, 4_000);
  const totalMs = nonNegative(options.totalMs, 15_000);
  return {
    baseMs,
    maxMs,
    totalMs,
    delay(retry: number): number {
      const exp = Math.min(maxMs, baseMs * 2 ** Math.max(0, retry - 1));
      const r = Math.min(Math.max(random(), 0), 1);
      return Math.round(exp * (0.5 + r / 2));
    },
  };
}

function nonNegative(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) && value >= 0 ? value : fallback;
}

/** How an attempt failed, as far as retrying is concerned. */
export type FailureKind =
  /** The server answered 5xx. */
  | 'server-error'
  /** No connection was made: NetBox never saw the request. */
  | 'connect-failed'
  /** The connection broke, or no answer came in time: NetBox may or may not have acted. */
  | 'lost';

export function isRetryable(method: string, kind: FailureKind): boolean {
  if (kind === 'connect-failed') return true;
  return method === 'GET' || method === 'PATCH';
}

/** Node's fetch (undici) codes for a connection that was never established. */
const CONNECT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT']);

/** The error codes found on a fetch failure (`err.cause.code`, and those of an AggregateError's parts). */
export function errorCodes(err: unknown): string[] {
  const codes: string[] = [];
  const visit = (e: unknown, depth: number): void => {
    if (e === null || typeof e !== 'object' || depth > 4) return;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    const inner = (e as { errors?: unknown }).errors;
    if (Array.isArray(inner)) for (const x of inner) visit(x, depth + 1);
    visit((e as { cause?: unknown }).cause, depth + 1);
  };
  visit(err, 0);
  return codes;
}

export function isConnectFailure(err: unknown): boolean {
  const codes = errorCodes(err);
  return codes.length > 0 && codes.every((c) => CONNECT_CODES.has(c));
}

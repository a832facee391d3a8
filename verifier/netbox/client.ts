import { describeFieldErrors, flattenFieldErrors, forbiddenMessage, NETBOX_ERROR_CODES, NetBoxError, type SanitizedCause } from './errors.js';
import { buildFilterQuery, isNetBoxEndpoint, type NetBoxEndpoint, type NetBoxFilters } from './filters.js';
import { errorCodes, isConnectFailure, isRetryable, makeBackoff, type Backoff, type BackoffOptions, type FailureKind } from './retry.js';
import type { NetBoxPage, NetBoxStatus } from './shapes.js';
import { parseToken, type ParsedToken } from './token.js';

/**
 * A NetBox 4.x REST client for fleet's verifier: the six endpoints fleet uses, whitelisted filters,
 * complete listings, per-request timeouts, careful retries, typed errors that never hold the token.
 */
export interface NetBoxClientOptions {
  /** `https://netbox.example` or `https://netbox.example/api` (a sub-path before /api is kept). */
  url: string;
  /** v1 (40 hex) or v2 (`nbt_<key>.<secret>`). Surrounding white space is ignored. */
  token: string;
  /** Per attempt, covering the answer's body. Default 10 s. */
  timeoutMs?: number;
  /** Further attempts after the first, for retryable failures. Default 3. */
  retries?: number;
  /** Default: Node's global fetch. */
  fetchImpl?: typeof fetch;
  backoff?: BackoffOptions;
  /** Jitter source, in [0, 1). */
  random?: () => number;
  /** How the client waits between attempts (tests pass one that returns at once). */
  sleep?: (ms: number) => Promise<void>;
  /** Receives `netbox.retry` events (same shape as the verifier's audit lines). Never receives the token. */
  log?: (event: string, fields: Record<string, unknown>) => void;
  /** Plain `http://` is refused except to loopback, since the token would cross the network in clear. */
  allowPlainHttp?: boolean;
}

/** NetBox caps `limit` at MAX_PAGE_SIZE (default 1000) and silently answers fewer for a larger one. */
export const PAGE_SIZE = 1000;
/** A listing that needs more pages than this is refused rather than followed forever. */
const MAX_PAGES = 10_000;
/** How many times a listing is re-read when NetBox's set changed while it was being paged. */
const LIST_PASSES = 3;

type Method = 'GET' | 'PATCH' | 'POST';

type Attempt =
  | { kind: 'response'; status: number; text: string; contentType: string; location: string | null }
  | { kind: 'failure'; failure: FailureKind; timedOut: boolean; cause: SanitizedCause };

const TIMEOUT = Symbol('netbox-timeout');

export class NetBoxClient {
  /** `1` or `2`. */
  readonly tokenVersion: 1 | 2;
  /** The API root, always ending in `/api/` (never holds credentials). */
  readonly apiUrl: string;
  readonly timeoutMs: number;
  readonly retries: number;

  readonly #token: ParsedToken;
  readonly #fetch: typeof fetch;
  readonly #backoff: Backoff;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #log: ((event: string, fields: Record<string, unknown>) => void) | undefined;

  constructor(options: NetBoxClientOptions) {
    if (options === null || typeof options !== 'object') {
      throw new NetBoxError(NETBOX_ERROR_CODES.configInvalid, 'NetBoxClient needs options { url, token }');
    }
    this.#token = parseToken(options.token);
    this.tokenVersion = this.#token.version;
    this.apiUrl = normalizeApiUrl(options.url, options.allowPlainHttp === true);
    this.timeoutMs = positiveInt(options.timeoutMs, 10_000, 'timeoutMs');
    this.retries = nonNegativeInt(options.retries, 3, 'retries');
    const fetchImpl = options.fetchImpl ?? globalThis.fetch;
    if (typeof fetchImpl !== 'function') {
      throw new NetBoxError(NETBOX_ERROR_CODES.configInvalid, 'no fetch implementation (Node 18+ has a global fetch)');
    }
    this.#fetch = fetchImpl;
    this.#backoff = makeBackoff(options.backoff, options.random);
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.#log = options.log;
  }

  /**
   * Every object of `endpoint` matching `filters`, following `next` until the end. Filters outside
   * the endpoint's whitelist (see filters.ts) are refused before anything is sent.
   */
  async list<T = Record<string, unknown>>(endpoint: NetBoxEndpoint, filters: NetBoxFilters = {}): Promise<T[]> {
    const query = buildFilterQuery(endpoint, filters);
    const filterPairs = [...query.entries()];
    query.set('limit', String(PAGE_SIZE));
    let lastProblem = '';
    for (let pass = 1; pass <= LIST_PASSES; pass++) {
      const outcome = await this.#listOnce<T>(endpoint, `${endpoint}/?${query.toString()}`, filterPairs);
      if (outcome.ok) return outcome.items;
      lastProblem = outcome.problem;
    }
    throw new NetBoxError(NETBOX_ERROR_CODES.error, `NetBox's answer to GET ${endpoint}/ kept changing while it was paged (${lastProblem}); try again`, {
      method: 'GET',
      path: `${endpoint}/`,
    });
  }

  /** One object by id. */
  async get<T = Record<string, unknown>>(endpoint: NetBoxEndpoint, id: number): Promise<T> {
    const path = objectPath('GET', endpoint, id);
    return readObject<T>(await this.#request('GET', path), 'GET', path);
  }

  /** Partial update. NetBox merges `custom_fields` into the object's existing ones. */
  async patch<T = Record<string, unknown>>(endpoint: NetBoxEndpoint, id: number, body: Record<string, unknown>): Promise<T> {
    const path = objectPath('PATCH', endpoint, id);
    checkBody('PATCH', path, body);
    return readObject<T>(await this.#request('PATCH', path, body), 'PATCH', path);
  }

  /** Creates an object. Never sent twice unless the connection was never made. */
  async post<T = Record<string, unknown>>(endpoint: NetBoxEndpoint, body: Record<string, unknown>): Promise<T> {
    if (!isNetBoxEndpoint(endpoint)) throw refusedEndpoint('POST', endpoint);
    const path = `${endpoint}/`;
    checkBody('POST', path, body);
    return readObject<T>(await this.#request('POST', path, body), 'POST', path);
  }

  /** `GET /api/status/`: NetBox's version, and a cheap check that the token is accepted. */
  async status(): Promise<NetBoxStatus> {
    const body = await this.#request('GET', 'status/');
    if (body === null || typeof body !== 'object' || typeof (body as NetBoxStatus)['netbox-version'] !== 'string') {
      throw new NetBoxError(NETBOX_ERROR_CODES.error, `NetBox at ${this.apiUrl} answered status/ without a netbox-version`, {
        method: 'GET',
        path: 'status/',
      });
    }
    return body as NetBoxStatus;
  }

  toJSON(): Record<string, unknown> {
    return { apiUrl: this.apiUrl, tokenVersion: this.tokenVersion };
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return `NetBoxClient { apiUrl: '${this.apiUrl}', tokenVersion: ${this.tokenVersion} }`;
  }

  async #listOnce<T>(
    endpoint: NetBoxEndpoint,
    firstPath: string,
    filterPairs: Array<[string, string]>,
  ): Promise<{ ok: true; items: T[] } | { ok: false; problem: string }> {
    const byId = new Map<number, T>();
    const visited = new Set<string>();
    let path = firstPath;
    let count = 0;
    for (let page = 1; ; page++) {
      const body = readPage<T>(await this.#request('GET', path), path);
      count = body.count;
      for (const item of body.results) {
        const id = item !== null && typeof item === 'object' ? (item as { id?: unknown }).id : undefined;
        if (typeof id !== 'number' || !Number.isInteger(id)) {
          throw new NetBoxError(NETBOX_ERROR_CODES.error, `NetBox answered GET ${path} with an object that has no numeric id`, {
            method: 'GET',
            path,
          });
        }
        if (!byId.has(id)) byId.set(id, item);
      }
      if (body.next === null) break;
      if (body.results.length === 0) return { ok: false, problem: 'an empty page with a next link' };
      if (page >= MAX_PAGES) {
        throw new NetBoxError(NETBOX_ERROR_CODES.error, `GET ${endpoint}/ needs more than ${MAX_PAGES} pages; refused`, {
          method: 'GET',
          path: `${endpoint}/`,
        });
      }
      const next = this.#nextPath(endpoint, body.next, filterPairs);
      if (visited.has(next)) return { ok: false, problem: 'a next link that repeats' };
      visited.add(next);
      path = next;
    }
    if (byId.size !== count) return { ok: false, problem: `${byId.size} distinct objects for a count of ${count}` };
    return { ok: true, items: [...byId.values()] };
  }

  /**
   * NetBox builds `next` from the Host it saw, which behind a proxy may be another scheme or host.
   * Only its query is used, on our own API URL: the token never goes where an answer points. The
   * link must keep the endpoint and every filter, or the rest of the listing would be something else.
   */
  #nextPath(endpoint: NetBoxEndpoint, next: string, filterPairs: Array<[string, string]>): string {
    let url: URL;
    try {
      url = new URL(next, this.apiUrl);
    } catch {
      throw this.#shapeError('GET', `${endpoint}/`, 'a next link that is not a URL');
    }
    if (!url.pathname.endsWith(`/${endpoint}/`)) {
      throw this.#shapeError('GET', `${endpoint}/`, 'a next link to another endpoint');
    }
    const params = url.searchParams;
    for (const [name, value] of filterPairs) {
      if (!params.getAll(name).includes(value)) {
        throw this.#shapeError('GET', `${endpoint}/`, `a next link that drops the filter ${name}`);
      }
    }
    return `${endpoint}/?${params.toString()}`;
  }

  #shapeError(method: Method, path: string, what: string): NetBoxError {
    return new NetBoxError(NETBOX_ERROR_CODES.error, `NetBox at ${this.apiUrl} answered ${method} ${path} with ${what}`, {
      method,
      path,
    });
  }

  /** One request, retried as retry.ts allows; answers the parsed JSON of a 2xx. */
  async #request(method: Method, path: string, body?: Record<string, unknown>): Promise<unknown> {
    let waited = 0;
    for (let attempt = 1; ; attempt++) {
      const result = await this.#attempt(method, path, body);
      let failure: FailureKind | undefined;
      if (result.kind === 'failure') failure = result.failure;
      else if (result.status >= 500) failure = 'server-error';
      else return this.#handleAnswer(method, path, result, attempt);

      const retryable = isRetryable(method, failure);
      const delay = this.#backoff.delay(attempt);
      if (!retryable || attempt > this.retries || waited + delay > this.#backoff.totalMs) {
        throw this.#failureError(method, path, result, attempt, retryable);
      }
      this.#log?.('netbox.retry', {
        method,
        path,
        attempt,
        waitMs: delay,
        reason: result.kind === 'failure' ? (result.timedOut ? 'timeout' : result.failure) : `http-${result.status}`,
      });
      await this.#sleep(delay);
      waited += delay;
    }
  }

  async #attempt(method: Method, path: string, body: Record<string, unknown> | undefined): Promise<Attempt> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(TIMEOUT), this.timeoutMs);
    const timedOut = (): boolean => controller.signal.aborted && controller.signal.reason === TIMEOUT;
    try {
      const headers: Record<string, string> = {
        Accept: 'application/json',
        Authorization: this.#token.header,
      };
      if (body !== undefined) headers['Content-Type'] = 'application/json';
      let res: Response;
      try {
        res = await this.#fetch(this.apiUrl + path, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: controller.signal,
          redirect: 'manual',
        });
      } catch (err) {
        if (timedOut()) return { kind: 'failure', failure: 'lost', timedOut: true, cause: this.#sanitize(err) };
        return {
          kind: 'failure',
          failure: isConnectFailure(err) ? 'connect-failed' : 'lost',
          timedOut: false,
          cause: this.#sanitize(err),
        };
      }
      let text: string;
      try {
        text = await res.text();
      } catch (err) {
        // Headers arrived, so NetBox saw the request: never "connect-failed".
        return { kind: 'failure', failure: 'lost', timedOut: timedOut(), cause: this.#sanitize(err) };
      }
      return {
        kind: 'response',
        status: res.status,
        text,
        contentType: res.headers.get('content-type') ?? '',
        location: res.headers.get('location'),
      };
    } finally {
      clearTimeout(timer);
    }
  }

  #handleAnswer(method: Method, path: string, res: Extract<Attempt, { kind: 'response' }>, attempts: number): unknown {
    const details = { status: res.status, method, path, attempts };
    if (res.status >= 200 && res.status < 300) {
      if (res.status === 204 || res.text === '') return null;
      try {
        return JSON.parse(res.text);
      } catch {
        throw new NetBoxError(
          NETBOX_ERROR_CODES.error,
          `NetBox at ${this.apiUrl} answered ${method} ${path} with ${res.status} but not JSON (${this.#summarize(res)}); ` + 'does the URL point at NetBox?',
          details,
        );
      }
    }
    const said = this.#summarize(res);
    if (res.status === 400) {
      const fieldErrors = this.#fieldErrors(res.text);
      const words = fieldErrors ? describeFieldErrors(fieldErrors) : said;
      throw new NetBoxError(NETBOX_ERROR_CODES.badRequest, `NetBox refused ${method} ${path}: ${words}`, {
        ...details,
        fieldErrors: fieldErrors ?? { detail: [said] },
      });
    }
    if (res.status === 401 || res.status === 403) {
      throw new NetBoxError(NETBOX_ERROR_CODES.forbidden, forbiddenMessage(method, path, res.status, said), details);
    }
    if (res.status === 404) {
      throw new NetBoxError(NETBOX_ERROR_CODES.notFound, `NetBox has no ${path} (404 on ${method}: ${said})`, details);
    }
    if (res.status >= 300 && res.status < 400) {
      const to = res.location ? ` to ${this.#token.redact(stripQuery(res.location))}` : '';
      throw new NetBoxError(
        NETBOX_ERROR_CODES.error,
        `NetBox at ${this.apiUrl} redirected ${method} ${path}${to} (${res.status}); set the URL to where the API really is ` + '(https rather than http?)',
        details,
      );
    }
    throw new NetBoxError(NETBOX_ERROR_CODES.error, `NetBox answered ${method} ${path} with ${res.status}: ${said}`, details);
  }

  #failureError(method: Method, path: string, result: Attempt, attempts: number, retryable: boolean): NetBoxError {
    const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
    const maybeApplied = method === 'POST' && !retryable ? '; the POST may or may not have been applied: check NetBox before sending it again' : '';
    if (result.kind === 'response') {
      return new NetBoxError(
        NETBOX_ERROR_CODES.error,
        `NetBox answered ${method} ${path} with ${result.status} (${this.#summarize(result)}) after ${tries}${maybeApplied}`,
        { status: result.status, method, path, attempts },
      );
    }
    const what = result.timedOut
      ? `did not answer ${method} ${path} within ${this.timeoutMs} ms`
      : result.failure === 'connect-failed'
        ? `could not be reached for ${method} ${path} (${result.cause.code ?? result.cause.message})`
        : `dropped the connection during ${method} ${path} (${result.cause.code ?? result.cause.message})`;
    return new NetBoxError(
      NETBOX_ERROR_CODES.unreachable,
      `NetBox at ${this.apiUrl} ${what}, after ${tries}${maybeApplied}`,
      { method, path, attempts },
      result.cause,
    );
  }

  #fieldErrors(text: string): Record<string, string[]> | undefined {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (body === null || typeof body !== 'object') return undefined;
    const flat = flattenFieldErrors(body);
    const out: Record<string, string[]> = {};
    for (const [k, v] of Object.entries(flat)) out[this.#token.redact(k)] = v.map((m) => this.#token.redact(m));
    return Object.keys(out).length > 0 ? out : undefined;
  }

  /** A short, redacted account of an answer's body, for messages. */
  #summarize(res: { text: string; contentType: string }): string {
    const text = res.text.slice(0, 64 * 1024);
    let said: string;
    try {
      const body = JSON.parse(text) as unknown;
      if (body !== null && typeof body === 'object' && typeof (body as { detail?: unknown }).detail === 'string') {
        said = (body as { detail: string }).detail;
      } else {
        said = describeFieldErrors(flattenFieldErrors(body)) || 'an empty JSON answer';
      }
    } catch {
      if (/<html|<!doctype/i.test(text) || res.contentType.includes('html')) {
        const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1]?.trim();
        said = `an HTML page${title ? ` titled "${title}"` : ''}, likely from a proxy rather than NetBox's API`;
      } else {
        said = text.replace(/\s+/g, ' ').trim() || 'an empty answer';
      }
    }
    said = this.#token.redact(said);
    return said.length > 300 ? `${said.slice(0, 300)}…` : said;
  }

  #sanitize(err: unknown): SanitizedCause {
    const codes = errorCodes(err);
    const inner = (err as { cause?: unknown } | null)?.cause;
    const message = inner instanceof Error && inner.message ? inner.message : err instanceof Error ? err.message : String(err);
    const out: SanitizedCause = {
      name: err instanceof Error ? err.name : 'Error',
      message: this.#token.redact(message).slice(0, 300),
    };
    if (codes[0] !== undefined) out.code = codes[0];
    return out;
  }
}

function refusedEndpoint(method: string, endpoint: string): NetBoxError {
  return new NetBoxError(NETBOX_ERROR_CODES.filterRefused, `refused to ${method} ${String(endpoint)}: it is not an endpoint fleet uses`, { method });
}

function objectPath(method: Method, endpoint: NetBoxEndpoint, id: number): string {
  if (!isNetBoxEndpoint(endpoint)) throw refusedEndpoint(method, endpoint);
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0) {
    throw new NetBoxError(NETBOX_ERROR_CODES.filterRefused, `refused to ${method} ${endpoint}/${String(id)}/: the id must be a positive integer`, { method });
  }
  return `${endpoint}/${id}/`;
}

function checkBody(method: Method, path: string, body: unknown): void {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new NetBoxError(NETBOX_ERROR_CODES.filterRefused, `refused to ${method} ${path}: the body must be a JSON object`, {
      method,
      path,
    });
  }
}

function readObject<T>(body: unknown, method: Method, path: string): T {
  if (body === null || typeof body !== 'object' || typeof (body as { id?: unknown }).id !== 'number') {
    throw new NetBoxError(NETBOX_ERROR_CODES.error, `NetBox answered ${method} ${path} with something that is not an object with an id`, {
      method,
      path,
    });
  }
  return body as T;
}

function readPage<T>(body: unknown, path: string): NetBoxPage<T> {
  const b = body as Partial<NetBoxPage<T>> | null;
  if (b === null || typeof b !== 'object' || typeof b.count !== 'number' || !Array.isArray(b.results) || (b.next !== null && typeof b.next !== 'string')) {
    throw new NetBoxError(NETBOX_ERROR_CODES.error, `NetBox answered GET ${path} without the {count, next, results} of a listing`, {
      method: 'GET',
      path,
    });
  }
  return { count: b.count, next: b.next ?? null, previous: typeof b.previous === 'string' ? b.previous : null, results: b.results };
}

function normalizeApiUrl(raw: string, allowPlainHttp: boolean): string {
  const fail = (why: string): NetBoxError => new NetBoxError(NETBOX_ERROR_CODES.configInvalid, `the NetBox URL ${why}`);
  if (typeof raw !== 'string' || raw.trim() === '') throw fail('is missing');
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw fail('is not a URL (expected https://netbox.example)');
  }
  if (url.username || url.password) throw fail('must not hold a user name or password (the token authenticates)');
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw fail(`uses ${url.protocol} (expected https:)`);
  if (url.protocol === 'http:' && !allowPlainHttp && !isLoopback(url.hostname)) {
    throw fail(`${url.origin} is plain http to another machine, which would send the token in clear; use https (or allowPlainHttp)`);
  }
  if (url.search || url.hash) throw fail('must not hold a query or fragment');
  let path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith('/api')) path += '/api';
  return `${url.origin}${path}/`;
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || /^127\.\d+\.\d+\.\d+$/.test(hostname) || hostname === '[::1]';
}

function stripQuery(location: string): string {
  const i = location.search(/[?#]/);
  return i < 0 ? location : location.slice(0, i);
}

function positiveInt(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) {
    throw new NetBoxError(NETBOX_ERROR_CODES.configInvalid, `${name} must be a positive number of milliseconds`);
  }
  return Math.ceil(value);
}

function nonNegativeInt(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) throw new NetBoxError(NETBOX_ERROR_CODES.configInvalid, `${name} must be a whole number ≥ 0`);
  return value;
}

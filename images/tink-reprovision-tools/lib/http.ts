import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { errorMessage } from '../../../shared/errors.js';
import { WHY } from '../lines/shared.js';

/** A server that sends nothing for this long has stalled: the request fails rather than hang the action. */
const IDLE_MS = 60_000;
const REDIRECTS = 5;

/**
 * An HTTP(S) request whose response streams Buffers straight from the socket (node:http moves a
 * gigabyte about a third faster than fetch's web streams), following redirects as fetch would.
 */
export async function request(
  url: string,
  opts: { method?: 'GET' | 'HEAD'; headers?: Record<string, string> } = {},
  hops = REDIRECTS,
): Promise<IncomingMessage> {
  const u = new URL(url);
  const client = u.protocol === 'https:' ? https : u.protocol === 'http:' ? http : null;
  if (!client) throw new Error(WHY.notHttp(u.protocol));
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    const req = client.request(u, { method: opts.method ?? 'GET', headers: opts.headers }, resolve);
    req.setTimeout(IDLE_MS, () => req.destroy(new Error(WHY.stalled(String(IDLE_MS / 1000)))));
    req.on('error', reject);
    req.end();
  });
  const status = res.statusCode ?? 0;
  if (status >= 300 && status < 400 && res.headers.location) {
    res.resume();
    if (hops === 0) throw new Error(WHY.redirects(String(REDIRECTS)));
    return request(new URL(res.headers.location, u).toString(), opts, hops - 1);
  }
  return res;
}

/** Why a request failed, in a person's words: the socket's code (ECONNREFUSED) when it has one. */
export function requestFailure(err: unknown): string {
  const code = (err as { code?: string }).code;
  return code == null ? errorMessage(err) : WHY.socket(code);
}

/**
 * Whether `url` answers with the resource, asked the cheap way: HEAD, or, for a server that does
 * not take HEAD (405, 501), the first byte by a Range GET. Null when it answers; else the reason.
 */
export async function unreachable(url: string): Promise<string | null> {
  try {
    let res = await request(url, { method: 'HEAD' });
    res.resume();
    if (res.statusCode === 405 || res.statusCode === 501) {
      res = await request(url, { headers: { range: 'bytes=0-0' } });
      res.destroy();
    }
    const status = res.statusCode ?? 0;
    return status >= 200 && status < 300 ? null : WHY.http(String(status));
  } catch (err) {
    return requestFailure(err);
  }
}

/**
 * Whether a server answers at `url` at all, whatever it holds there (`unreachable` asks whether the
 * resource is there): a HEAD, and any status below 500, a 404 too, is an answer. Null when it
 * answers; else the reason (the socket's code, a stall, `HTTP 5xx`).
 */
export async function silent(url: string): Promise<string | null> {
  try {
    const res = await request(url, { method: 'HEAD' });
    res.resume();
    const status = res.statusCode ?? 0;
    return status > 0 && status < 500 ? null : WHY.http(String(status));
  } catch (err) {
    return requestFailure(err);
  }
}

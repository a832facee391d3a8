import type { TSchema, Static } from '@sinclair/typebox';
import { FleetError, errorMessage } from '../../shared/errors.js';
import { isLoopback } from '../../shared/net/loopback.js';
import { checkValue } from '../../shared/wire/validate.js';

/** A failure worth another try: the verifier did not answer, or answered 5xx. */
export class TransportError extends FleetError {}

/** The verifier refused the request itself (4xx): another try would be refused the same way. */
export class RequestRefused extends FleetError {}

export interface ClientOptions {
  /** e.g. https://fleetd.example:8443 */
  baseUrl: string;
  /** PEM CA bundle the verifier's certificate must chain to; without it, the system's CAs. */
  ca?: string | Buffer;
  timeoutMs?: number;
  /** Settles before any request is sent: the agent's clock, which TLS checks the verifier's certificate by. */
  ready?: Promise<unknown>;
}

const MAX_ANSWER = 64 * 1024;

/** POSTs JSON to the verifier and checks the answer against the wire schema. */
export async function postJson<T extends TSchema>(opts: ClientOptions, path: string, body: unknown, answer: T): Promise<Static<T>> {
  await opts.ready;
  const url = new URL(path, opts.baseUrl);
  const payload = Buffer.from(JSON.stringify(body));
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new RequestRefused('verifier-url-refused', `the verifier URL ${opts.baseUrl} is neither http nor https`);
  // The answer carries the install code: in the clear only where it cannot leave this machine.
  if (url.protocol === 'http:' && !isLoopback(url.hostname.replace(/^\[|\]$/g, ''))) {
    throw new RequestRefused('verifier-url-refused', `refusing plain HTTP to ${url.host}: the verifier must be https:// off this machine`);
  }
  // Loaded at the first request, which comes after the TPM's first key: not before the TPM starts.
  const { request: send } = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = send(
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': payload.length },
        timeout: opts.timeoutMs ?? 30_000,
        ...(url.protocol === 'https:' && opts.ca ? { ca: opts.ca } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_ANSWER) req.destroy(new Error(`answer exceeds ${MAX_ANSWER} bytes`));
          else chunks.push(c);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${(opts.timeoutMs ?? 30_000) / 1000} s`)));
    req.on('error', reject);
    req.end(payload);
  }).catch((err: unknown) => {
    throw new TransportError('verifier-unreachable', `${url.host}: ${errorMessage(err)}`);
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (status >= 500 || status === 0) throw new TransportError('verifier-error', `${url.host} answered ${status}`);
  if (status !== 200) {
    const msg = (json as { message?: unknown } | undefined)?.message;
    throw new RequestRefused('verifier-refused', `${url.host} answered ${status}: ${typeof msg === 'string' ? msg : text.slice(0, 200)}`);
  }
  return checkValue(answer, json, 'verifier-answer-invalid', "the verifier's answer");
}

import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply } from 'fastify';
import { httpStatus, type HttpErrorCode } from '../../shared/error-codes.js';
import { FleetError } from '../../shared/errors.js';
import {
  base64Length,
  ErrorResponse,
  FinishRequest,
  FinishResponse,
  MAX_EVENT_LOG_BYTES,
  PATHS,
  StartAnswer,
  StartRequest,
} from '../../shared/wire/schemas.js';
import type { AttestationService } from '../attest/service.js';
import type { DocKind } from '../install/config-store.js';
import type { Installs } from '../install/installs.js';
import type { Metrics } from '../metrics.js';
import { isLoopback } from '../../shared/net/loopback.js';
import { DEFAULT_CONNECTION_LIMITS, guardConnections, type ConnectionLimits } from './connection-guard.js';
import { deliveryConnection } from './delivery-connection.js';
import { closeOnceJudged } from './lingering-close.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js';
import { listeningUrl, type ListenAddress } from './listen-address.js';
import { metricsAccess } from './metrics-access.js';
import { peerAddress } from '../../shared/net/peer-address.js';
import type { Subnet } from '../../shared/net/subnet.js';

export interface ServerOptions {
  service: AttestationService;
  /** Serves `GET /v1/config/<code>` and `/v1/seed/<code>`: the node's rendered config or seed, once. */
  installs?: Installs;
  /** Serves `GET /metrics`, to loopback and the addresses `metricsFrom` names (metrics-access.ts). */
  metrics?: Metrics;
  metricsFrom?: readonly Subnet[];
  /** PEM certificate chain and key: HTTPS. Without them, plain HTTP, on loopback only. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** fastify's logger (pino options), or false. */
  logger?: boolean | object;
  /** How long a request may take to arrive once it has begun (default 30 s). */
  requestTimeoutMs?: number;
  /** What a connection may hold before it asks anything (connection-guard.ts). */
  connections?: Partial<ConnectionLimits>;
  /** What is wrong while fleetd still serves, for /healthz to say; none when healthy. */
  degraded?: () => string[];
}

/**
 * Request bodies are capped per route, by what the protocol allows: a start holds at most two EK
 * publics and certificates and an AK (under 27 KiB in base64 JSON); a finish its event log
 * (MAX_EVENT_LOG_BYTES) and a few KiB more. Any other body is refused at the start's size.
 */
const START_BODY_LIMIT = 64 * 1024;
const FINISH_BODY_LIMIT = base64Length(MAX_EVENT_LOG_BYTES) + 64 * 1024;
/** A request must arrive whole within this once begun: no slow-loris. */
const REQUEST_TIMEOUT_MS = 30_000;

export function buildServer(opts: ServerOptions): FastifyInstance {
  const timeout = opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  // Node enforces requestTimeout only when it checks its connections (every 30 s by default), and
  // a trickle keeps an idle timer alive: check at least every second, headers within the timeout.
  const limits = { requestTimeout: timeout, headersTimeout: timeout, connectionsCheckingInterval: Math.min(1000, timeout) };
  const conns = { ...DEFAULT_CONNECTION_LIMITS, ...opts.connections };
  const app = Fastify({
    logger: withRedactedUrls(opts.logger ?? false),
    bodyLimit: START_BODY_LIMIT,
    // Request ids tie a request's audit lines together; random, so they reveal no count.
    genReqId: () => randomUUID(),
    serverFactory: (handler) => {
      const server = opts.tls
        ? createHttpsServer({ ...limits, handshakeTimeout: conns.handshakeMs, cert: opts.tls.cert, key: opts.tls.key }, handler)
        : createHttpServer(limits, handler);
      guardConnections(server, conns, !!opts.tls);
      return server;
    },
    ...(opts.tls ? { https: { cert: opts.tls.cert, key: opts.tls.key } } : {}),
    ajv: { customOptions: { allErrors: false, coerceTypes: false, removeAdditional: false } },
  });

  shallowJson(app);
  app.post(PATHS.start, { bodyLimit: START_BODY_LIMIT, schema: { body: StartRequest, response: { 200: StartAnswer, '4xx': ErrorResponse } } }, async (req) =>
    opts.service.start(req.body as StartRequest, { peer: peerAddress(req.ip), requestId: req.id }),
  );
  app.post(
    PATHS.finish,
    { bodyLimit: FINISH_BODY_LIMIT, schema: { body: FinishRequest, response: { 200: FinishResponse, '4xx': ErrorResponse } } },
    async (req) => opts.service.finish(req.body as FinishRequest, { peer: peerAddress(req.ip), requestId: req.id }),
  );
  // Degraded is still up: fleetd answers, from its last good inventory, and says what is wrong.
  app.get('/healthz', async () => {
    const degraded = opts.degraded?.() ?? [];
    return degraded.length ? { ok: true, degraded } : { ok: true };
  });
  if (opts.installs) for (const kind of ['config', 'seed'] as const) documentRoute(app, opts.installs, kind);
  if (opts.metrics) {
    const registry = opts.metrics.registry;
    const may = metricsAccess(opts.metricsFrom ?? []);
    app.get('/metrics', async (req, reply) => {
      // Anyone else learns nothing, not even that the route exists.
      if (!may(req.ip)) return answerError(reply, 'not-found', 'no such route');
      return reply.header('content-type', registry.contentType).send(await registry.metrics());
    });
  }

  // Fastify's own answer echoes the path and logs it; a near-miss of a document's path carries a code.
  app.setNotFoundHandler((_req, reply) => answerError(reply, 'not-found', 'no such route'));
  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (err.validation) return answerError(reply, 'bad-request', `the request body is invalid: ${err.message}`);
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      // The error's own status and code: TooManySessions's (from the registry), or fastify's FST_ERR_*.
      return reply.code(err.statusCode).send({ error: err.code ?? ('bad-request' satisfies HttpErrorCode), message: err.message });
    }
    req.log.error({ err }, 'request failed');
    opts.metrics?.errors.labels(req.routeOptions.url ?? 'unrouted').inc();
    return answerError(reply, 'internal', 'the verifier failed; read journalctl -u fleetd');
  });
  return app;
}

/** JSON bodies as fastify parses them (prototype poisoning refused), once they are known not to nest deeply. */
function shallowJson(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (nestsDeeperThan(body as string, MAX_JSON_DEPTH)) {
      return done(Object.assign(new FleetError('bad-request', `the request body nests deeper than ${MAX_JSON_DEPTH} levels`), { statusCode: 400 }), undefined);
    }
    parse(req, body as string, done);
  });
}

/** An error answer, with the status the registry gives its code. */
function answerError(reply: FastifyReply, code: HttpErrorCode, message: string): FastifyReply {
  return reply.code(httpStatus(code)).send({ error: code, message });
}

const CODE = /^[A-Za-z0-9_-]{43}$/;
/** A run of characters as long as most of a code: never written to the request log, whatever the path. */
const CODE_LIKE = /[A-Za-z0-9_-]{24,}/g;

/**
 * The request log (pino) with every code-like run of a URL replaced. The document routes are
 * silent, but a path that misses them by a slash, a case or a letter reaches the log at info.
 */
function withRedactedUrls(logger: boolean | object): boolean | object {
  if (!logger) return false;
  const req = (r: { method?: string; url?: string; ip?: string; socket?: { remotePort?: number } }) => ({
    method: r.method,
    url: (r.url ?? '').replace(CODE_LIKE, '<redacted>'),
    remoteAddress: r.ip,
    remotePort: r.socket?.remotePort,
  });
  return { ...(typeof logger === 'object' ? logger : {}), serializers: { req } };
}

/** Where a node fetches what its code unlocks: its Talos config, or a disk-image node's seed. */
export const DOC_PATHS: Record<DocKind, string> = { config: '/v1/config', seed: '/v1/seed' };

/**
 * `GET /v1/config/<code>` (a Talos node's talos.config URL) and `GET /v1/seed/<code>` (a
 * disk-image node's seed). Never logged: the path holds the code. Answers say no more than found or
 * not, so a guessed code learns nothing. What is answered counts as served only once the peer
 * acknowledged it whole (Installs.delivered), whenever the answer ends. No HEAD: a HEAD would end
 * the answer, and spend the document, without sending it.
 */
function documentRoute(app: FastifyInstance, installs: Installs, kind: DocKind): void {
  app.get<{ Params: { code: string } }>(`${DOC_PATHS[kind]}/:code`, { logLevel: 'silent', exposeHeadRoute: false }, async (req, reply) => {
    reply.header('cache-control', 'no-store');
    const none = () => answerError(reply, 'not-found', `fleetd holds no ${kind} for this code`);
    if (!CODE.test(req.params.code)) return none();
    const from = peerAddress(req.ip);
    const answer = await installs.fetch(req.params.code, from, kind);
    if (answer.status === 503) return answerError(reply.header('retry-after', '10'), 'unavailable', `fleetd cannot serve the ${kind} now; try again`);
    if (answer.status === 429)
      return answerError(reply.header('retry-after', String(answer.retryAfterS)), 'too-many-guesses', `${answer.reason}; try again later`);
    if (answer.status !== 200) return none();
    const conn = deliveryConnection(req.raw.socket, reply.raw);
    let delivery: Promise<unknown> | undefined;
    const settle = () => {
      delivery ??= installs.delivered(answer.sha256, conn, from, kind).catch((err: unknown) => req.log.error({ err }, 'recording a delivery failed'));
      return delivery;
    };
    reply.raw.once('finish', settle);
    reply.raw.once('close', settle);
    closeOnceJudged(req.raw.socket, settle);
    return reply.code(200).header('content-type', answer.contentType).send(answer.body);
  });
}

/** Listens, refusing plain HTTP anywhere but loopback: the agent's answers carry install codes. */
export async function listen(app: FastifyInstance, addr: ListenAddress, tls: boolean): Promise<string> {
  if (!tls && !isLoopback(addr.host)) {
    throw new FleetError('insecure-listen', `refusing plain HTTP on ${addr.host}: give --cert and --key, or listen on loopback`);
  }
  await app.listen({ host: addr.host, port: addr.port });
  // Not fastify's answer, which names a wildcard address 127.0.0.1.
  return listeningUrl(addr, (app.server.address() as AddressInfo).port, tls);
}

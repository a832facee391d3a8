import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { FleetError } from '../../shared/errors.js';
import { ErrorResponse, FinishRequest, FinishResponse, PATHS, StartAnswer, StartRequest } from '../../shared/wire/schemas.js';
import type { AttestationService } from '../attest/service.js';
import type { Installs } from '../install/installs.js';
import type { Metrics } from '../metrics.js';
import { isLoopback } from '../../shared/net/loopback.js';
import type { ListenAddress } from './listen-address.js';

export interface ServerOptions {
  service: AttestationService;
  /** Serves `GET /v1/config/<code>`: the node's rendered config, once. */
  installs?: Installs;
  /** Serves `GET /metrics`. */
  metrics?: Metrics;
  /** PEM certificate chain and key: HTTPS. Without them, plain HTTP, on loopback only. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** fastify's logger (pino options), or false. */
  logger?: boolean | object;
  /** How long a request may take to arrive, and an idle connection may stay (default 30 s). */
  requestTimeoutMs?: number;
}

/** Request bodies are capped: the largest legal finish (a 1 MiB event log, base64) plus room. */
const BODY_LIMIT = 1.5 * 1024 * 1024;
/** A request must arrive whole within this, and an idle connection closes: no slow-loris. */
const REQUEST_TIMEOUT_MS = 30_000;
/** Connections held at once; a fleet of netbooting nodes needs a handful each. */
const MAX_CONNECTIONS = 1024;

export function buildServer(opts: ServerOptions): FastifyInstance {
  const timeout = opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  // Node enforces requestTimeout only when it checks its connections (every 30 s by default), and
  // a trickle keeps an idle timer alive: check at least every second, headers within the timeout.
  const limits = { requestTimeout: timeout, headersTimeout: timeout, connectionsCheckingInterval: Math.min(1000, timeout) };
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit: BODY_LIMIT,
    // Request ids tie a request's audit lines together; random, so they reveal no count.
    genReqId: () => randomUUID(),
    serverFactory: (handler) => {
      const server = opts.tls ? createHttpsServer({ ...limits, cert: opts.tls.cert, key: opts.tls.key }, handler) : createHttpServer(limits, handler);
      server.maxConnections = MAX_CONNECTIONS;
      return server;
    },
    ...(opts.tls ? { https: { cert: opts.tls.cert, key: opts.tls.key } } : {}),
    ajv: { customOptions: { allErrors: false, coerceTypes: false, removeAdditional: false } },
  });
  const peer = (ip: string) => ip.replace(/^::ffff:/, '');

  app.post(
    PATHS.start,
    { schema: { body: StartRequest, response: { 200: StartAnswer, '4xx': ErrorResponse } } },
    async (req) => opts.service.start(req.body as StartRequest, { peer: peer(req.ip), requestId: req.id }),
  );
  app.post(
    PATHS.finish,
    { schema: { body: FinishRequest, response: { 200: FinishResponse, '4xx': ErrorResponse } } },
    async (req) => opts.service.finish(req.body as FinishRequest, { peer: peer(req.ip), requestId: req.id }),
  );
  app.get('/healthz', async () => ({ ok: true }));
  if (opts.installs) configRoute(app, opts.installs, peer);
  if (opts.metrics) {
    const registry = opts.metrics.registry;
    app.get('/metrics', async (_req, reply) => reply.header('content-type', registry.contentType).send(await registry.metrics()));
  }

  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (err.validation) return reply.code(400).send({ error: 'bad-request', message: `the request body is invalid: ${err.message}` });
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      return reply.code(err.statusCode).send({ error: err.code ?? 'bad-request', message: err.message });
    }
    req.log.error({ err }, 'request failed');
    opts.metrics?.errors.labels(req.routeOptions.url ?? 'unrouted').inc();
    return reply.code(500).send({ error: 'internal', message: 'the verifier failed; read journalctl -u fleetd' });
  });
  return app;
}

const CODE = /^[A-Za-z0-9_-]{43}$/;

/**
 * `GET /v1/config/<code>` (the node's talos.config URL). Never logged: the path holds the code.
 * Answers say no more than found or not, so a guessed code learns nothing. The config counts as
 * served only once the peer acknowledged it whole (Installs.delivered), whenever the answer ends.
 */
function configRoute(app: FastifyInstance, installs: Installs, peer: (ip: string) => string): void {
  app.get<{ Params: { code: string } }>('/v1/config/:code', { logLevel: 'silent' }, async (req, reply) => {
    reply.header('cache-control', 'no-store');
    if (!CODE.test(req.params.code)) return reply.code(404).send({ error: 'not-found', message: 'fleetd holds no config for this code' });
    const from = peer(req.ip);
    const answer = await installs.fetch(req.params.code, from);
    if (answer.status === 503) return reply.code(503).header('retry-after', '10').send({ error: 'unavailable', message: 'fleetd cannot serve the config now; try again' });
    if (answer.status !== 200) return reply.code(404).send({ error: 'not-found', message: 'fleetd holds no config for this code' });
    const socket = req.raw.socket;
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      void installs.delivered(answer.sha256, socket, from).catch((err: unknown) => req.log.error({ err }, 'recording a config delivery failed'));
    };
    reply.raw.once('finish', settle);
    reply.raw.once('close', settle);
    return reply.code(200).header('content-type', 'application/yaml').send(answer.body);
  });
}

/** Listens, refusing plain HTTP anywhere but loopback: the agent's answers carry install codes. */
export async function listen(app: FastifyInstance, addr: ListenAddress, tls: boolean): Promise<string> {
  if (!tls && !isLoopback(addr.host)) {
    throw new FleetError('insecure-listen', `refusing plain HTTP on ${addr.host}: give --cert and --key, or listen on loopback`);
  }
  return app.listen({ host: addr.host, port: addr.port });
}

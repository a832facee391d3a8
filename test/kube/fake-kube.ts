/**
 * A faithful fake Kubernetes API server for fleet's tests: real HTTPS with mutual TLS on 127.0.0.1,
 * the Tinkerbell and Rufio custom resources, Leases and Secrets, with the real server's behaviour
 * (fake-kube-store.ts says which, and from where) and its Status error bodies. No kube-apiserver
 * can run on these machines (DESIGN.md §5), so this is what fleet's Kubernetes client is tested on.
 *
 * On start it makes a CA, a server certificate for 127.0.0.1 and a client certificate
 * (CN=fleetd, O=system:masters), and writes a kubeconfig (context namespace
 * `tinkerbell`) that @kubernetes/client-node loads as it would the lab's. A request without a
 * client certificate signed by that CA is answered 401, as an API server with anonymous auth off.
 *
 * Test-only controls (not HTTP): `objects` and `put` (another writer: Tinkerbell moving a Workflow's
 * status, Rufio a Machine's power state), the request log, and fault injection.
 * Not implemented, and refused rather than faked: watch, dryRun, server-side apply.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { stringify } from 'yaml';
import { isObject, str, type Json, type JsonObject } from './fake-kube-json.js';
import { badRequest, conflict, KubeStatusError, KubeStore, OPTIMISTIC_LOCK, type DeleteOptions, type ResourceDef } from './fake-kube-store.js';
import { issued, readPem, selfSigned, tlsFiles } from '../tls-files.js';

export type { Json, JsonObject } from './fake-kube-json.js';
export { KubeStatusError, RESOURCES, type ResourceDef } from './fake-kube-store.js';

/** One request as the server saw it. */
export interface KubeRequest {
  /** The Kubernetes verb: get, list, watch, create, update, patch, delete, deletecollection ('' when unrouted). */
  verb: string;
  /** The resource and subresource: `workflows`, `workflows/status`, `leases` ('' when unrouted). */
  resource: string;
  group: string;
  namespace: string | undefined;
  name: string | undefined;
  method: string;
  /** Path and query. */
  url: string;
  contentType: string | undefined;
  /** The status answered; 0 when the connection was closed instead. */
  status: number;
  /** The fault injected into this request, if any. */
  fault: 'fail' | 'close' | 'delay' | 'conflict' | undefined;
}

export interface FaultMatch {
  /** Only requests with this verb (`patch`, `list`, ...). */
  verb?: string;
  /** Only requests to this resource, exactly as logged (`workflows` does not match `workflows/status`). */
  resource?: string;
}

export interface FailOptions extends FaultMatch {
  /** 500 (default), 503, 429 (with Retry-After: 1) or 504. */
  status?: number;
}

interface Fault {
  kind: 'fail' | 'close' | 'delay' | 'conflict';
  remaining: number;
  match: FaultMatch;
  status: number;
  ms: number;
}

/** The kube-apiserver's default --max-request-bytes for a body. */
const MAX_BODY = 3 * 1024 * 1024;

/** Certificates for a CA, the server (127.0.0.1, localhost) and the fleetd client, as PEM. */
function makeCertificates(dir: string): { ca: string; serverCert: string; serverKey: string; clientCert: string; clientKey: string } {
  const ca = selfSigned(tlsFiles(dir, 'ca'), { subject: '/CN=fake-kube-ca', days: 2 });
  const server = readPem(issued(tlsFiles(dir, 'server'), ca, { subject: '/CN=kube-apiserver', ips: ['127.0.0.1'], dns: ['localhost'], days: 2 }));
  const client = readPem(issued(tlsFiles(dir, 'client'), ca, { subject: '/O=system:masters/CN=fleetd', usage: 'clientAuth', days: 2 }));
  return { ca: readPem(ca).cert, serverCert: server.cert, serverKey: server.key, clientCert: client.cert, clientKey: client.key };
}

interface Route {
  def: ResourceDef;
  namespace: string | undefined;
  name: string | undefined;
  status: boolean;
}

function notFoundPath(): KubeStatusError {
  return new KubeStatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

function methodNotAllowed(): KubeStatusError {
  return new KubeStatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}

/** Injected failures, with the Status bodies the API server (or its max-in-flight filter) sends. */
function injected(status: number): { error: KubeStatusError; headers: Record<string, string> } {
  switch (status) {
    case 429:
      return {
        error: new KubeStatusError(429, 'TooManyRequests', 'Too many requests, please try again later.', { retryAfterSeconds: 1 }),
        headers: { 'Retry-After': '1' },
      };
    case 503:
      return {
        error: new KubeStatusError(503, 'ServiceUnavailable', 'fake-kube: injected failure: the server is currently unable to handle the request'),
        headers: {},
      };
    case 504:
      return {
        error: new KubeStatusError(504, 'Timeout', 'Timeout: request did not complete within requested timeout - context deadline exceeded'),
        headers: {},
      };
    case 500:
      return {
        error: new KubeStatusError(500, 'InternalError', 'Internal error occurred: fake-kube: injected failure', {
          causes: [{ message: 'fake-kube: injected failure' }],
        }),
        headers: {},
      };
    default:
      return { error: new KubeStatusError(status, '', 'fake-kube: injected failure'), headers: {} };
  }
}

export class FakeKube {
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  /** A kubeconfig file (removed by close()) for `KubeConfig.loadFromFile`. */
  readonly kubeconfigPath: string;
  /** The same kubeconfig, for `KubeConfig.loadFromString`. */
  readonly kubeconfigYaml: string;
  /** PEM: the CA that signed the server, and the fleetd client certificate and key (for raw HTTPS). */
  readonly clientTls: { ca: string; cert: string; key: string };
  /** Every request, in arrival order. */
  readonly requests: KubeRequest[] = [];

  private readonly store = new KubeStore();
  private faults: Fault[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();

  private constructor(
    private readonly server: https.Server,
    private readonly dir: string,
    url: string,
    kubeconfigPath: string,
    kubeconfigYaml: string,
    clientTls: { ca: string; cert: string; key: string },
  ) {
    this.url = url;
    this.kubeconfigPath = kubeconfigPath;
    this.kubeconfigYaml = kubeconfigYaml;
    this.clientTls = clientTls;
  }

  static async start(): Promise<FakeKube> {
    const dir = await mkdtemp(join(tmpdir(), 'fake-kube-'));
    try {
      const tls = makeCertificates(dir);
      // Client certificates are requested but checked per request, to answer 401 with a Status body.
      const server = https.createServer({
        key: tls.serverKey,
        cert: tls.serverCert,
        ca: tls.ca,
        requestCert: true,
        rejectUnauthorized: false,
        minVersion: 'TLSv1.2',
      });
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
      });
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const b64 = (pem: string) => Buffer.from(pem).toString('base64');
      const kubeconfigYaml = stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'fake-kube', cluster: { server: url, 'certificate-authority-data': b64(tls.ca) } }],
        users: [{ name: 'fleetd', user: { 'client-certificate-data': b64(tls.clientCert), 'client-key-data': b64(tls.clientKey) } }],
        contexts: [{ name: 'fleetd@fake-kube', context: { cluster: 'fake-kube', user: 'fleetd', namespace: 'tinkerbell' } }],
        'current-context': 'fleetd@fake-kube',
      });
      const kubeconfigPath = join(dir, 'kubeconfig');
      await writeFile(kubeconfigPath, kubeconfigYaml, { mode: 0o600 });
      const fake = new FakeKube(server, dir, url, kubeconfigPath, kubeconfigYaml, { ca: tls.ca, cert: tls.clientCert, key: tls.clientKey });
      server.on('request', (req: IncomingMessage, res: ServerResponse) => void fake.handle(req, res));
      return fake;
    } catch (err) {
      await rm(dir, { recursive: true, force: true });
      throw err;
    }
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
    await rm(this.dir, { recursive: true, force: true });
  }

  /** Stored objects of a resource (`''` is the core group), all namespaces unless `ns`. */
  objects(group: string, plural: string, ns?: string): JsonObject[] {
    return this.store.objects(group, plural, ns);
  }

  /** Writes an object, spec and status, as another client would; returns what is stored. */
  put(obj: JsonObject): JsonObject {
    return this.store.put(obj);
  }

  /** Requests per `<verb> <resource>`, e.g. `{ 'patch workflows/status': 2, 'list hardware': 1 }`. */
  countBy(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const r of this.requests) {
      const key = `${r.verb} ${r.resource}`;
      counts[key] = (counts[key] ?? 0) + 1;
    }
    return counts;
  }

  /** The next `n` matching requests fail with a Status body (500 unless `status`). */
  failNext(n: number, options: FailOptions = {}): void {
    const { status = 500, ...match } = options;
    this.faults.push({ kind: 'fail', remaining: n, match, status, ms: 0 });
  }

  /** The next `n` matching requests wait `ms` before being served. */
  delayNext(n: number, ms: number, match: FaultMatch = {}): void {
    this.faults.push({ kind: 'delay', remaining: n, match, status: 0, ms });
  }

  /** The next `n` matching requests get their connection destroyed, with no answer. */
  closeNext(n: number, match: FaultMatch = {}): void {
    this.faults.push({ kind: 'close', remaining: n, match, status: 0, ms: 0 });
  }

  /** The next `n` updates and patches (of `resource`, if given) are answered 409 Conflict, as if another writer had won. */
  conflictNext(n: number, options: { resource?: string } = {}): void {
    this.faults.push({ kind: 'conflict', remaining: n, match: options, status: 409, ms: 0 });
  }

  clearFaults(): void {
    this.faults = [];
  }

  private takeFault(kind: Fault['kind'], entry: KubeRequest): Fault | undefined {
    const fault = this.faults.find(
      (f) =>
        f.kind === kind &&
        f.remaining > 0 &&
        (f.match.verb === undefined || f.match.verb === entry.verb) &&
        (f.match.resource === undefined || f.match.resource === entry.resource) &&
        (kind !== 'conflict' || entry.verb === 'update' || entry.verb === 'patch'),
    );
    if (fault) {
      fault.remaining--;
      entry.fault = kind;
    }
    return fault;
  }

  private route(path: string): Route | undefined {
    let segments: string[];
    try {
      segments = path
        .split('/')
        .filter((s) => s !== '')
        .map(decodeURIComponent);
    } catch {
      return undefined;
    }
    let group: string;
    let version: string;
    let rest: string[];
    if (segments[0] === 'api' && segments.length >= 2) {
      [group, version, rest] = ['', segments[1] as string, segments.slice(2)];
    } else if (segments[0] === 'apis' && segments.length >= 3) {
      [group, version, rest] = [segments[1] as string, segments[2] as string, segments.slice(3)];
    } else {
      return undefined;
    }
    let namespace: string | undefined;
    if (rest[0] === 'namespaces' && rest.length >= 3) {
      namespace = rest[1];
      rest = rest.slice(2);
    } else if (rest.length !== 1) {
      return undefined;
    }
    const def = this.store.resolve(group, version, rest[0] as string);
    if (!def || rest.length > 3) return undefined;
    const sub = rest[2];
    if (sub !== undefined && !(sub === 'status' && def.status)) return undefined;
    return { def, namespace, name: rest[1], status: sub === 'status' };
  }

  private static verb(method: string, route: Route, query: URLSearchParams): string {
    switch (method) {
      case 'GET':
        if (route.name !== undefined) return 'get';
        return ['true', '1'].includes(query.get('watch') ?? '') ? 'watch' : 'list';
      case 'POST':
        return route.name === undefined ? 'create' : '';
      case 'PUT':
        return route.name === undefined ? '' : 'update';
      case 'PATCH':
        return route.name === undefined ? '' : 'patch';
      case 'DELETE':
        return route.name === undefined ? 'deletecollection' : 'delete';
      default:
        return '';
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://127.0.0.1');
    const route = this.route(url.pathname);
    const entry: KubeRequest = {
      verb: route ? FakeKube.verb(req.method ?? '', route, url.searchParams) : '',
      resource: route ? `${route.def.plural}${route.status ? '/status' : ''}` : '',
      group: route?.def.group ?? '',
      namespace: route?.namespace,
      name: route?.name,
      method: req.method ?? '',
      url: req.url ?? '/',
      contentType: req.headers['content-type'],
      status: 0,
      fault: undefined,
    };
    this.requests.push(entry);
    const send = (status: number, body: JsonObject, headers: Record<string, string> = {}) => {
      entry.status = status;
      const text = JSON.stringify(body);
      res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...headers });
      res.end(text);
    };

    if (!(req.socket as TLSSocket).authorized) {
      req.resume();
      send(401, new KubeStatusError(401, 'Unauthorized', 'Unauthorized').status());
      return;
    }
    const delay = this.takeFault('delay', entry);
    if (delay) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          resolve();
        }, delay.ms);
        this.timers.add(timer);
      });
    }
    if (this.takeFault('close', entry)) {
      req.socket.destroy();
      return;
    }
    const fail = this.takeFault('fail', entry);
    if (fail) {
      req.resume();
      const { error, headers } = injected(fail.status);
      send(error.code, error.status(), headers);
      return;
    }
    if (route && this.takeFault('conflict', entry)) {
      req.resume();
      send(409, conflict(route.def, route.name ?? '', OPTIMISTIC_LOCK).status());
      return;
    }

    try {
      const body = await readBody(req);
      const [status, answer] = this.dispatch(req, url, route, entry.verb, body);
      send(status, answer);
    } catch (err) {
      const error = err instanceof KubeStatusError ? err : new KubeStatusError(500, 'InternalError', `Internal error occurred: ${String(err)}`);
      send(error.code, error.status());
    }
  }

  private dispatch(req: IncomingMessage, url: URL, route: Route | undefined, verb: string, body: string): [number, JsonObject] {
    if (!route) throw notFoundPath();
    if (verb === '') throw methodNotAllowed();
    const q = url.searchParams;
    if (verb === 'watch') throw badRequest('fake-kube: watch is not implemented');
    if (q.has('dryRun')) throw badRequest('fake-kube: dryRun is not implemented');
    const { def, name, status } = route;
    const ns = route.namespace;
    if (ns === undefined && verb !== 'list') throw methodNotAllowed();
    const listQuery = {
      labelSelector: q.get('labelSelector') ?? undefined,
      fieldSelector: q.get('fieldSelector') ?? undefined,
      limit: q.get('limit') ?? undefined,
      continue: q.get('continue') ?? undefined,
    };
    switch (verb) {
      case 'get':
        return [200, this.store.get(def, ns as string, name as string)];
      case 'list':
        return [200, this.store.list(def, ns, listQuery)];
      case 'create':
        return [201, this.store.create(def, ns as string, parseJson(body))];
      case 'update': {
        const { object, created } = this.store.replace(def, ns as string, name as string, parseJson(body), status);
        return [created ? 201 : 200, object];
      }
      case 'patch': {
        // The media type without parameters (`; charset=utf-8`), as PatchResource compares it.
        const contentType = (req.headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
        return [200, this.store.patch(def, ns as string, name as string, contentType, parseJson(body), status)];
      }
      case 'delete':
        return [200, this.store.delete(def, ns as string, name as string, deleteOptions(body, q))];
      default:
        return [200, this.store.deleteCollection(def, ns as string, listQuery, deleteOptions(body, q))];
    }
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new KubeStatusError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${MAX_BODY}`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(body: string): Json {
  try {
    return JSON.parse(body) as Json;
  } catch (err) {
    throw badRequest(`error decoding body: ${(err as Error).message}`);
  }
}

/** DeleteOptions come from a body when there is one, else from the query (handlers/delete.go). */
function deleteOptions(body: string, q: URLSearchParams): DeleteOptions {
  if (body.trim() !== '') {
    const o = parseJson(body);
    if (!isObject(o)) throw badRequest('DeleteOptions must be a JSON object');
    const pre = isObject(o.preconditions) ? o.preconditions : undefined;
    return {
      propagationPolicy: str(o.propagationPolicy),
      orphanDependents: typeof o.orphanDependents === 'boolean' ? o.orphanDependents : undefined,
      preconditions: pre && { uid: str(pre.uid), resourceVersion: str(pre.resourceVersion) },
    };
  }
  const orphan = q.get('orphanDependents');
  return { propagationPolicy: q.get('propagationPolicy') ?? undefined, orphanDependents: orphan === null ? undefined : orphan === 'true' };
}

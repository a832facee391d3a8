/**
 * A recording proxy in front of the real CRD server, for the reconciler's tests: it passes every
 * request through unchanged, and keeps what a test asks of a real server but cannot make it do:
 * the list of requests (verb, resource, name, status), and faults on demand (an answer of a given
 * status, a 409 as if another writer had won), answered as kube-apiserver answers them (a Status).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { request } from 'node:https';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { CrdServer } from './crd-server.js';

export interface ProxiedRequest {
  verb: 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'other';
  /** The plural, with its subresource: `hardware`, `workflows/status`, `leases`. */
  resource: string;
  name?: string;
  status: number;
  fault?: 'fail' | 'conflict';
}

interface Fault {
  kind: 'fail' | 'conflict';
  remaining: number;
  status: number;
  verb?: string;
  resource?: string;
}

/** /apis/<group>/<version>/namespaces/<ns>/<plural>[/<name>[/<sub>]] → the request's verb, resource and name. */
function classify(method: string, url: URL): Omit<ProxiedRequest, 'status'> {
  const seg = url.pathname.split('/').filter(Boolean);
  const at = seg.indexOf('namespaces');
  const [plural, name, sub] = at >= 0 ? seg.slice(at + 2) : [];
  const resource = `${plural ?? url.pathname}${sub ? `/${sub}` : ''}`;
  const verb =
    method === 'GET'
      ? name
        ? 'get'
        : url.searchParams.get('watch') === 'true'
          ? 'watch'
          : 'list'
      : method === 'POST'
        ? 'create'
        : method === 'PUT'
          ? 'update'
          : method === 'PATCH'
            ? 'patch'
            : method === 'DELETE'
              ? 'delete'
              : 'other';
  return { verb, resource, ...(name ? { name } : {}) };
}

const REASONS: Record<number, string> = { 403: 'Forbidden', 409: 'Conflict', 500: 'InternalError', 503: 'ServiceUnavailable' };

export class ApiProxy {
  readonly requests: ProxiedRequest[] = [];
  readonly kubeconfigPath: string;
  private faults: Fault[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
    dir: string,
  ) {
    this.kubeconfigPath = join(dir, 'proxy.kubeconfig');
    writeFileSync(
      this.kubeconfigPath,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        // Plain HTTP on loopback: client-node takes an http:// server only with this set.
        clusters: [{ name: 'proxy', cluster: { server: url, 'insecure-skip-tls-verify': true } }],
        users: [{ name: 'fleetd', user: {} }],
        contexts: [{ name: 'fleetd@proxy', context: { cluster: 'proxy', user: 'fleetd' } }],
        'current-context': 'fleetd@proxy',
      }),
      { mode: 0o600 },
    );
  }

  static async start(upstream: CrdServer, dir: string): Promise<ApiProxy> {
    let proxy: ApiProxy | undefined;
    const server = createServer((req, res) => void proxy!.handle(upstream, req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    proxy = new ApiProxy(server, `http://127.0.0.1:${(server.address() as { port: number }).port}`, dir);
    return proxy;
  }

  /** The next `n` matching requests are answered `status` (500 unless given), not passed on. */
  failNext(n: number, o: { status?: number; verb?: string; resource?: string } = {}): void {
    this.faults.push({
      kind: 'fail',
      remaining: n,
      status: o.status ?? 500,
      ...(o.verb ? { verb: o.verb } : {}),
      ...(o.resource ? { resource: o.resource } : {}),
    });
  }

  /** The next `n` writes (updates and patches, of `resource` if given) are answered 409, as if another writer had won. */
  conflictNext(n: number, o: { resource?: string } = {}): void {
    this.faults.push({ kind: 'conflict', remaining: n, status: 409, ...(o.resource ? { resource: o.resource } : {}) });
  }

  private takeFault(r: Omit<ProxiedRequest, 'status'>): Fault | undefined {
    const f = this.faults.find(
      (x) =>
        x.remaining > 0 &&
        (x.verb === undefined || x.verb === r.verb) &&
        (x.resource === undefined || x.resource === r.resource) &&
        (x.kind !== 'conflict' || r.verb === 'update' || r.verb === 'patch'),
    );
    if (f) f.remaining--;
    return f;
  }

  private async handle(upstream: CrdServer, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const what = classify(req.method ?? 'GET', url);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const fault = this.takeFault(what);
    if (fault) {
      const message =
        fault.kind === 'conflict'
          ? `Operation cannot be fulfilled on ${what.resource} "${what.name ?? ''}": the object has been modified; please apply your changes to the latest version and try again`
          : `api-proxy: injected failure (${fault.status})`;
      this.requests.push({ ...what, status: fault.status, fault: fault.kind });
      res.writeHead(fault.status, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: REASONS[fault.status] ?? '', code: fault.status }),
      );
      return;
    }
    const headers = { ...req.headers };
    delete headers.host;
    const up = request(`${upstream.url}${req.url ?? '/'}`, { method: req.method, headers, ca: upstream.caCert }, (answer) => {
      this.requests.push({ ...what, status: answer.statusCode ?? 0 });
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on('error', (err) => {
      this.requests.push({ ...what, status: 502 });
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(String(err));
    });
    up.end(Buffer.concat(chunks));
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}

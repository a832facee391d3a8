/**
 * Kubernetes' own CRD API server (k8s.io/apiextensions-apiserver, built by
 * crd-apiserver/build.sh beside this file from Debian's packages) on its own etcd, both on
 * loopback ports of their own, with the real Tinkerbell and Rufio CRDs applied (and the stand-in
 * Lease CRD, since this server has no coordination API). A server that cannot be built or started
 * fails the test with its output.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'node:https';
import { parse, stringify } from 'yaml';
import { Daemons, freePort } from '../daemon.js';
import { TESTDATA } from '../testdata.js';

const TOOL = fileURLToPath(new URL('./crd-apiserver/', import.meta.url));
const CRDS = join(TESTDATA, 'tinkerbell/crd/v1alpha1');
/** Where the binary is built once per machine and kept. */
export const CRD_SERVER_DIR = join(tmpdir(), 'fleet-crd-apiserver');

type Json = Record<string, unknown>;

/** The binary, built when missing (about 2 minutes the first time on this machine). */
function crdServerBinary(): string {
  const r = spawnSync('sh', [join(TOOL, 'build.sh'), CRD_SERVER_DIR], { encoding: 'utf8', timeout: 900_000 });
  if (r.status !== 0) throw new Error(`building crd-apiserver failed (${r.status}):\n${r.stderr}\n${r.stdout}`);
  return r.stdout.trim().split('\n').at(-1)!;
}

export class CrdServer {
  readonly kubeconfigPath: string;

  private constructor(
    readonly url: string,
    /** The server's own CA (its self-signed certificate chain). */
    readonly caCert: Buffer,
    private readonly daemons: Daemons,
  ) {
    this.kubeconfigPath = join(daemons.dir, 'kubeconfig');
    writeFileSync(
      this.kubeconfigPath,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'crd', cluster: { server: url, 'certificate-authority-data': caCert.toString('base64') } }],
        // Authentication is off: any client is admitted, as the lab's admin certificate is.
        users: [{ name: 'fleetd', user: {} }],
        contexts: [{ name: 'fleetd@crd', context: { cluster: 'crd', user: 'fleetd', namespace: 'tinkerbell' } }],
        'current-context': 'fleetd@crd',
      }),
      { mode: 0o600 },
    );
  }

  static async start(): Promise<CrdServer> {
    const bin = crdServerBinary();
    const d = new Daemons('crd');
    const [client, peer, secure] = [await freePort(), await freePort(), await freePort()];
    const etcdUrl = `http://127.0.0.1:${client}`;
    d.spawn('etcd', [
      '--data-dir',
      join(d.dir, 'etcd'),
      '--listen-client-urls',
      etcdUrl,
      '--advertise-client-urls',
      etcdUrl,
      '--listen-peer-urls',
      `http://127.0.0.1:${peer}`,
      '--initial-advertise-peer-urls',
      `http://127.0.0.1:${peer}`,
      '--initial-cluster',
      `default=http://127.0.0.1:${peer}`,
      '--log-level',
      'error',
    ]);
    d.spawn(bin, ['--etcd-servers', etcdUrl, '--secure-port', String(secure), '--bind-address', '127.0.0.1', '--cert-dir', join(d.dir, 'certs')]);
    const url = `https://127.0.0.1:${secure}`;
    const ca = () => readFileSync(join(d.dir, 'certs', 'apiserver.crt'));
    await d.until('crd-apiserver', async () => (await call(url, ca(), 'GET', '/readyz')).status === 200, 60_000);
    const server = new CrdServer(url, ca(), d);
    try {
      await server.applyCrds();
    } catch (err) {
      await d.stop();
      throw err;
    }
    return server;
  }

  /** Every real CRD and the Lease stand-in, each waited for until Established. */
  private async applyCrds(): Promise<void> {
    const files = [
      ...readdirSync(CRDS)
        .filter((f) => f.endsWith('.yaml'))
        .map((f) => join(CRDS, f)),
      join(TOOL, 'lease-crd.yaml'),
    ];
    const names: string[] = [];
    for (const f of files) {
      const crd = parse(readFileSync(f, 'utf8')) as { metadata: { name: string } };
      const r = await this.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
      if (r.status !== 201) throw new Error(`applying ${f}: ${r.status} ${JSON.stringify(r.body)}`);
      names.push(crd.metadata.name);
    }
    const deadline = Date.now() + 30_000;
    for (const name of names) {
      for (;;) {
        const r = await this.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
        const conditions = ((r.body.status as Json | undefined)?.conditions ?? []) as Array<{ type: string; status: string }>;
        if (conditions.some((c) => c.type === 'Established' && c.status === 'True')) break;
        if (Date.now() > deadline) throw new Error(`the CRD ${name} was not Established within 30 s`);
        await new Promise((r2) => setTimeout(r2, 50));
      }
    }
  }

  /** Every object of a resource in a namespace, as the server holds it. */
  async objects(group: string, version: string, plural: string, ns: string): Promise<Json[]> {
    const r = await this.request('GET', `/apis/${group}/${version}/namespaces/${ns}/${plural}`);
    if (r.status !== 200) throw new Error(`list ${plural}: ${r.status} ${JSON.stringify(r.body)}`);
    return (r.body.items as Json[] | undefined) ?? [];
  }

  /** One object as the server holds it, or null when there is none. */
  async get(apiVersion: string, plural: string, ns: string, name: string): Promise<Json | null> {
    const r = await this.request('GET', `/apis/${apiVersion}/namespaces/${ns}/${plural}/${name}`);
    if (r.status === 404) return null;
    if (r.status !== 200) throw new Error(`get ${plural}/${name}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }

  /** Creates an object as another client (Flux, say) would, strictly validated. */
  async create(obj: { apiVersion: string; kind: string; metadata: { name: string; namespace: string } }, plural: string): Promise<Json> {
    const r = await this.request('POST', `/apis/${obj.apiVersion}/namespaces/${obj.metadata.namespace}/${plural}?fieldValidation=Strict`, obj);
    if (r.status !== 201) throw new Error(`create ${obj.kind} ${obj.metadata.name}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }

  /** Writes an object's status through its status subresource, as its controller (Tinkerbell, Rufio) does. */
  async writeStatus(apiVersion: string, plural: string, ns: string, name: string, status: Json): Promise<void> {
    const path = `/apis/${apiVersion}/namespaces/${ns}/${plural}/${name}/status?fieldValidation=Strict`;
    const r = await this.request('PATCH', path, { status });
    if (r.status !== 200) throw new Error(`status of ${plural}/${name}: ${r.status} ${JSON.stringify(r.body)}`);
  }

  /**
   * The same, only if the object is still at `resourceVersion` (the API server's optimistic
   * concurrency, as a controller's update has it): false when another writer came first.
   */
  async writeStatusIf(apiVersion: string, plural: string, ns: string, name: string, status: Json, resourceVersion: string): Promise<boolean> {
    const path = `/apis/${apiVersion}/namespaces/${ns}/${plural}/${name}/status?fieldValidation=Strict`;
    const r = await this.request('PATCH', path, { metadata: { resourceVersion }, status });
    if (r.status === 409) return false;
    if (r.status !== 200) throw new Error(`status of ${plural}/${name}: ${r.status} ${JSON.stringify(r.body)}`);
    return true;
  }

  /** A raw request to the server (paths under /apis/...), answering its status and JSON body. */
  request(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
    return call(this.url, this.caCert, method, path, body);
  }

  stop(): Promise<void> {
    return this.daemons.stop();
  }
}

function call(base: string, ca: Buffer, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = request(
      `${base}${path}`,
      {
        method,
        ca,
        headers: {
          accept: 'application/json',
          ...(data ? { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json', 'content-length': data.length } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: Json = {};
          try {
            json = text ? (JSON.parse(text) as Json) : {};
          } catch {
            json = { text };
          }
          resolve({ status: res.statusCode ?? 0, body: json });
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/**
 * The fake API server over raw HTTPS, for what a client library hides or never sends: the 415 a
 * strategic merge patch gets on a custom resource, the Status body of a 401, routing errors, and
 * continue tokens the server no longer (or never) knew.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeKube, type JsonObject } from './fake-kube.js';
import { readPem, selfSigned, tlsFiles } from '../tls-files.js';

let fake: FakeKube;

interface Answer {
  status: number;
  body: JsonObject;
}

/** One request; `identity` null sends no client certificate. */
async function call(
  method: string,
  path: string,
  options: { body?: unknown; contentType?: string; identity?: { cert: string; key: string } | null } = {},
): Promise<Answer> {
  const identity = options.identity === undefined ? { cert: fake.clientTls.cert, key: fake.clientTls.key } : options.identity;
  const payload = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${fake.url}${path}`,
      {
        method,
        ca: fake.clientTls.ca,
        ...(identity ?? {}),
        agent: false,
        headers: { Accept: 'application/json', ...(payload === undefined ? {} : { 'Content-Type': options.contentType ?? 'application/json' }) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonObject }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const WORKFLOWS = '/apis/tinkerbell.org/v1alpha1/namespaces/tinkerbell/workflows';

beforeAll(async () => {
  fake = await FakeKube.start();
  const created = await call('POST', WORKFLOWS, {
    body: { apiVersion: 'tinkerbell.org/v1alpha1', kind: 'Workflow', metadata: { name: 'wf-raw' }, spec: { templateRef: 'provision' } },
  });
  expect(created.status).toBe(201);
});
afterAll(async () => {
  await fake.close();
});

describe('patch content types', () => {
  it('a strategic merge patch on a custom resource is 415 UnsupportedMediaType, and changes nothing', async () => {
    const before = await call('GET', `${WORKFLOWS}/wf-raw`);
    const answer = await call('PATCH', `${WORKFLOWS}/wf-raw`, {
      body: { spec: { templateRef: 'provision-image' } },
      contentType: 'application/strategic-merge-patch+json',
    });
    expect(answer).toEqual({
      status: 415,
      body: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message:
          'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
        reason: 'UnsupportedMediaType',
        code: 415,
      },
    });
    expect(await call('GET', `${WORKFLOWS}/wf-raw`)).toEqual(before);
  });

  it('a media type parameter is ignored, as the server strips it', async () => {
    const answer = await call('PATCH', `${WORKFLOWS}/wf-raw`, {
      body: { metadata: { labels: { run: 'r1' } } },
      contentType: 'application/merge-patch+json; charset=utf-8',
    });
    expect(answer.status).toBe(200);
    expect((answer.body.metadata as JsonObject).labels).toEqual({ run: 'r1' });
  });

  it('a built-in resource takes a strategic merge patch (the fake: only where it means a merge patch)', async () => {
    const secrets = '/api/v1/namespaces/tinkerbell/secrets';
    expect((await call('POST', secrets, { body: { metadata: { name: 'bmc-amt' }, stringData: { username: 'admin' } } })).status).toBe(201);
    const merged = await call('PATCH', `${secrets}/bmc-amt`, {
      body: { stringData: { password: 'secret' } },
      contentType: 'application/strategic-merge-patch+json',
    });
    expect(merged.status).toBe(200);
    expect(Object.keys(merged.body.data as JsonObject).sort()).toEqual(['password', 'username']);
    const withList = await call('PATCH', `${secrets}/bmc-amt`, {
      body: { metadata: { finalizers: ['x/y'] } },
      contentType: 'application/strategic-merge-patch+json',
    });
    expect(withList.status).toBe(415);
  });
});

describe('authentication', () => {
  it('no client certificate: 401 with a Status body', async () => {
    expect(await call('GET', `${WORKFLOWS}/wf-raw`, { identity: null })).toEqual({
      status: 401,
      body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 },
    });
  });

  it('a client certificate from another CA: 401', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fake-kube-stranger-'));
    try {
      const identity = readPem(selfSigned(tlsFiles(dir), { subject: '/O=system:masters/CN=fleetd' }));
      const answer = await call('GET', `${WORKFLOWS}/wf-raw`, { identity });
      expect([answer.status, answer.body.reason]).toEqual([401, 'Unauthorized']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('routing', () => {
  it.each([
    ['an unknown group', '/apis/example.com/v1/namespaces/tinkerbell/widgets'],
    ['an unknown version', '/apis/tinkerbell.org/v1/namespaces/tinkerbell/workflows'],
    ['a subresource the CRD does not declare', `${WORKFLOWS}/wf-raw/scale`],
    ['/status of a Lease (no status subresource)', '/apis/coordination.k8s.io/v1/namespaces/tinkerbell/leases/x/status'],
  ])('%s is 404', async (_what, path) => {
    const answer = await call('GET', path);
    expect([answer.status, answer.body.reason, answer.body.message]).toEqual([404, 'NotFound', 'the server could not find the requested resource']);
  });

  it('a POST to an object is 405; a body that is not JSON is 400', async () => {
    expect((await call('POST', `${WORKFLOWS}/wf-raw`, { body: {} })).body.reason).toBe('MethodNotAllowed');
    const garbled = await call('POST', WORKFLOWS, { body: '{"apiVersion":' });
    expect([garbled.status, garbled.body.reason]).toEqual([400, 'BadRequest']);
  });

  it('watch is refused rather than faked', async () => {
    const answer = await call('GET', `${WORKFLOWS}?watch=true`);
    expect([answer.status, answer.body.message]).toEqual([400, 'fake-kube: watch is not implemented']);
  });
});

describe('continue tokens', () => {
  it('a token for a revision the server holds no snapshot of is 410 Expired; garbage is 400', async () => {
    const token = Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 1, start: 'tinkerbell/a\u0000' })).toString('base64');
    const expired = await call('GET', `${WORKFLOWS}?limit=1&continue=${encodeURIComponent(token)}`);
    expect([expired.status, expired.body.reason]).toEqual([410, 'Expired']);
    expect(expired.body.message).toMatch(/^The provided continue parameter is too old to display a consistent list result/);
    const garbage = await call('GET', `${WORKFLOWS}?limit=1&continue=bm9wZQ`);
    expect([garbage.status, garbage.body.reason]).toEqual([400, 'BadRequest']);
  });
});

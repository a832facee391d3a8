/**
 * The fake API server driven as fleet will drive the real one: @kubernetes/client-node 1.4 over
 * mutual TLS, from the kubeconfig the fake writes. Each test names its own objects, so the suite
 * shares one server. Errors arrive as client-node's ApiException: `.code` is the HTTP status and
 * `.body` the Status object as a JSON *string* (undefined for 401, which client-node declares).
 */
import { X509Certificate } from 'node:crypto';
import {
  ApiException,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  V1MicroTime,
  type V1Lease,
} from '@kubernetes/client-node';
import { parse, stringify } from 'yaml';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeKube, type JsonObject } from './fake-kube.js';

const TINK = { group: 'tinkerbell.org', version: 'v1alpha1' };
const BMC = { group: 'bmc.tinkerbell.org', version: 'v1alpha1' };
const NS = 'tinkerbell';
const MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const JSON_PATCH = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);
const CONFLICT_MESSAGE = 'the object has been modified; please apply your changes to the latest version and try again';

let fake: FakeKube;
let kc: KubeConfig;
let api: CustomObjectsApi;

/** The Status an ApiException carries, parsed, and the answer's headers. */
interface Failure {
  code: number;
  status: JsonObject;
  headers: Record<string, string>;
}

async function failure(p: Promise<unknown>): Promise<Failure> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ApiException);
    const e = err as ApiException<unknown>;
    expect(typeof e.body).toBe('string');
    return { code: e.code, status: JSON.parse(e.body as string) as JsonObject, headers: e.headers };
  }
  throw new Error('expected the request to fail');
}

function workflow(name: string, extra: JsonObject = {}): JsonObject {
  return {
    apiVersion: 'tinkerbell.org/v1alpha1',
    kind: 'Workflow',
    metadata: { name, labels: { 'fleet.example/node': 'node-1' } },
    spec: { templateRef: 'provision', hardwareRef: 'node-1', hardwareMap: { device_1: '52:54:00:12:34:56' } },
    ...extra,
  };
}

const createWorkflow = (body: JsonObject, namespace = NS) =>
  api.createNamespacedCustomObject({ ...TINK, namespace, plural: 'workflows', body }) as Promise<JsonObject>;
const getWorkflow = (name: string) => api.getNamespacedCustomObject({ ...TINK, namespace: NS, plural: 'workflows', name }) as Promise<JsonObject>;
const patchWorkflow = (name: string, body: unknown, options?: Parameters<CustomObjectsApi['patchNamespacedCustomObject']>[1]) =>
  api.patchNamespacedCustomObject({ ...TINK, namespace: NS, plural: 'workflows', name, body }, options) as Promise<JsonObject>;
const meta = (o: JsonObject) => o.metadata as JsonObject;

beforeAll(async () => {
  fake = await FakeKube.start();
  kc = new KubeConfig();
  kc.loadFromFile(fake.kubeconfigPath);
  api = kc.makeApiClient(CustomObjectsApi);
});
afterAll(async () => {
  await fake.close();
});
afterEach(() => {
  fake.clearFaults();
});

describe('the kubeconfig', () => {
  it('names the fake over HTTPS, its CA, a fleetd client certificate and the tinkerbell namespace', () => {
    expect(kc.getCurrentCluster()?.server).toBe(fake.url);
    expect(fake.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(kc.getContextObject(kc.getCurrentContext())?.namespace).toBe(NS);
    const cert = new X509Certificate(fake.clientTls.cert);
    expect(cert.subject.split('\n').sort()).toEqual(['CN=fleetd', 'O=system:masters']);
    expect(cert.verify(new X509Certificate(fake.clientTls.ca).publicKey)).toBe(true);
  });

  it('without a client certificate, every request is 401 (client-node drops the body of a 401)', async () => {
    const doc = parse(fake.kubeconfigYaml) as { users: { user: Record<string, string> }[] };
    for (const u of doc.users) u.user = {};
    const anonymous = new KubeConfig();
    anonymous.loadFromString(stringify(doc));
    let caught: unknown;
    try {
      await anonymous.makeApiClient(CustomObjectsApi).listNamespacedCustomObject({ ...TINK, namespace: NS, plural: 'workflows' });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ApiException);
    expect((caught as ApiException<unknown>).code).toBe(401);
    expect((caught as ApiException<unknown>).body).toBeUndefined();
    expect(fake.requests.at(-1)?.status).toBe(401);
  });
});

describe('create', () => {
  it('fills uid, creationTimestamp, resourceVersion and generation, and drops status (status subresource)', async () => {
    const created = await createWorkflow(workflow('wf-create', { status: { state: 'STATE_SUCCESS' } }));
    const m = meta(created);
    expect(m.namespace).toBe(NS);
    expect(m.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(m.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(m.resourceVersion).toMatch(/^\d+$/);
    expect(m.generation).toBe(1);
    expect(created.status).toBeUndefined();
    expect(await getWorkflow('wf-create')).toEqual(created);
  });

  it('a taken name is 409 AlreadyExists', async () => {
    await createWorkflow(workflow('wf-taken'));
    const { code, status } = await failure(createWorkflow(workflow('wf-taken')));
    expect(code).toBe(409);
    expect(status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'workflows.tinkerbell.org "wf-taken" already exists',
      reason: 'AlreadyExists',
      details: { name: 'wf-taken', group: 'tinkerbell.org', kind: 'workflows' },
      code: 409,
    });
  });

  it('generateName makes a unique name from the prefix', async () => {
    const body = workflow('');
    delete meta(body).name;
    meta(body).generateName = 'provision-node-1-';
    const [a, b] = await Promise.all([createWorkflow(body), createWorkflow(body)]);
    expect(meta(a as JsonObject).name).toMatch(/^provision-node-1-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(meta(a as JsonObject).name).not.toBe(meta(b as JsonObject).name);
  });

  it('checks the body: kind, apiVersion, name, labels, and no resourceVersion', async () => {
    const wrongKind = await failure(createWorkflow({ ...workflow('wf-kind'), kind: 'Hardware' }));
    expect(wrongKind.code).toBe(422);
    expect(wrongKind.status.message).toBe('Hardware.tinkerbell.org "wf-kind" is invalid: kind: Invalid value: "Hardware": must be Workflow');

    const noKind = workflow('wf-nokind');
    delete noKind.kind;
    expect((await failure(createWorkflow(noKind))).status.message).toMatch(
      /^the object provided is unrecognized \(must be of type Workflow\): Object 'Kind' is missing/,
    );

    const wrongVersion = await failure(createWorkflow({ ...workflow('wf-version'), apiVersion: 'tinkerbell.org/v1' }));
    expect([wrongVersion.code, wrongVersion.status.message]).toEqual([
      400,
      'the API version in the data (tinkerbell.org/v1) does not match the expected API version (tinkerbell.org/v1alpha1)',
    ]);

    const badName = await failure(createWorkflow(workflow('Node_1')));
    expect(badName.code).toBe(422);
    expect(badName.status.message).toMatch(
      /^Workflow\.tinkerbell\.org "Node_1" is invalid: metadata\.name: Invalid value: "Node_1": a lowercase RFC 1123 subdomain/,
    );
    expect(((badName.status.details as JsonObject).causes as JsonObject[])[0]).toMatchObject({ reason: 'FieldValueInvalid', field: 'metadata.name' });

    // A MAC is not a label value: the real server refuses it.
    const macLabel = workflow('wf-mac');
    meta(macLabel).labels = { mac: '52:54:00:12:34:56' };
    const refused = await failure(createWorkflow(macLabel));
    expect([refused.code, refused.status.reason]).toEqual([422, 'Invalid']);
    expect(refused.status.message).toContain('metadata.labels: Invalid value: "52:54:00:12:34:56": a valid label must be an empty string');

    const withVersion = workflow('wf-rv');
    meta(withVersion).resourceVersion = '5';
    const rv = await failure(createWorkflow(withVersion));
    expect([rv.code, rv.status.message]).toEqual([500, 'resourceVersion should not be set on objects to be created']);

    expect(fake.objects('tinkerbell.org', 'workflows', NS).map((o) => meta(o).name)).not.toContain('wf-kind');
  });
});

describe('get and list', () => {
  const LIST_NS = 'list-test';
  beforeAll(async () => {
    const nodes: [string, Record<string, string>][] = [
      ['hw-a', { role: 'worker', rack: 'r1' }],
      ['hw-b', { role: 'worker', rack: 'r2' }],
      ['hw-c', { role: 'controlplane', rack: 'r1' }],
      ['hw-d', { role: 'worker' }],
      ['hw-e', {}],
    ];
    for (const [name, labels] of nodes) {
      await api.createNamespacedCustomObject({
        ...TINK,
        namespace: LIST_NS,
        plural: 'hardware',
        body: { apiVersion: 'tinkerbell.org/v1alpha1', kind: 'Hardware', metadata: { name, labels }, spec: {} },
      });
    }
  });
  const names = (list: JsonObject) => (list.items as JsonObject[]).map((i) => meta(i).name);
  const listHardware = (extra: { labelSelector?: string; fieldSelector?: string; limit?: number; _continue?: string } = {}) =>
    api.listNamespacedCustomObject({ ...TINK, namespace: LIST_NS, plural: 'hardware', ...extra }) as Promise<JsonObject>;

  it('a missing object is 404 NotFound', async () => {
    const { code, status } = await failure(getWorkflow('wf-missing'));
    expect(code).toBe(404);
    expect(status).toMatchObject({
      reason: 'NotFound',
      message: 'workflows.tinkerbell.org "wf-missing" not found',
      details: { name: 'wf-missing', group: 'tinkerbell.org', kind: 'workflows' },
    });
  });

  it('a list is a HardwareList with the current resourceVersion, sorted by name', async () => {
    const list = await listHardware();
    expect(list.apiVersion).toBe('tinkerbell.org/v1alpha1');
    expect(list.kind).toBe('HardwareList');
    expect(Number((list.metadata as JsonObject).resourceVersion)).toBeGreaterThanOrEqual(
      Number(meta((list.items as JsonObject[])[4] as JsonObject).resourceVersion),
    );
    expect(names(list)).toEqual(['hw-a', 'hw-b', 'hw-c', 'hw-d', 'hw-e']);
    expect((list.items as JsonObject[])[0]).toMatchObject({ apiVersion: 'tinkerbell.org/v1alpha1', kind: 'Hardware' });
  });

  it.each([
    ['role=worker', ['hw-a', 'hw-b', 'hw-d']],
    ['role==worker,rack=r1', ['hw-a']],
    ['role!=worker', ['hw-c', 'hw-e']],
    ['rack in (r1,r2)', ['hw-a', 'hw-b', 'hw-c']],
    ['rack notin (r1)', ['hw-b', 'hw-d', 'hw-e']],
    ['rack', ['hw-a', 'hw-b', 'hw-c']],
    ['!rack', ['hw-d', 'hw-e']],
  ])('labelSelector %j', async (labelSelector, expected) => {
    expect(names(await listHardware({ labelSelector }))).toEqual(expected);
  });

  it('fieldSelector metadata.name', async () => {
    expect(names(await listHardware({ fieldSelector: 'metadata.name=hw-c' }))).toEqual(['hw-c']);
    expect(names(await listHardware({ fieldSelector: 'metadata.name!=hw-c', labelSelector: 'role=worker' }))).toEqual(['hw-a', 'hw-b', 'hw-d']);
  });

  it('a malformed selector or an unsupported field is 400 BadRequest', async () => {
    const bad = await failure(listHardware({ labelSelector: 'role in worker' }));
    expect([bad.code, bad.status.reason, bad.status.message]).toEqual([400, 'BadRequest', "unable to parse requirement: found 'worker' expected: '('"]);
    const field = await failure(listHardware({ fieldSelector: 'spec.bmcRef=x' }));
    expect([field.code, field.status.message]).toEqual([400, 'field label not supported: spec.bmcRef']);
  });

  it('limit and continue page through one consistent snapshot', async () => {
    const first = await listHardware({ limit: 2 });
    const firstMeta = first.metadata as JsonObject;
    expect(names(first)).toEqual(['hw-a', 'hw-b']);
    expect(firstMeta.remainingItemCount).toBe(3);
    expect(typeof firstMeta.continue).toBe('string');

    // Written between pages: the rest of the list is still read at the first page's revision.
    await api.createNamespacedCustomObject({
      ...TINK,
      namespace: LIST_NS,
      plural: 'hardware',
      body: { apiVersion: 'tinkerbell.org/v1alpha1', kind: 'Hardware', metadata: { name: 'hw-bb' }, spec: {} },
    });
    const second = await listHardware({ limit: 2, _continue: firstMeta.continue as string });
    expect(names(second)).toEqual(['hw-c', 'hw-d']);
    expect((second.metadata as JsonObject).resourceVersion).toBe(firstMeta.resourceVersion);
    const third = await listHardware({ limit: 2, _continue: (second.metadata as JsonObject).continue as string });
    expect(names(third)).toEqual(['hw-e']);
    expect((third.metadata as JsonObject).continue).toBeUndefined();
    expect(names(await listHardware())).toContain('hw-bb');
  });

  it('a list of all namespaces', async () => {
    const all = (await api.listCustomObjectForAllNamespaces({ ...TINK, plural: 'hardware', labelSelector: 'rack=r2' })) as JsonObject;
    expect((all.items as JsonObject[]).map((i) => `${meta(i).namespace}/${meta(i).name}`)).toEqual([`${LIST_NS}/hw-b`]);
  });
});

describe('replace (PUT)', () => {
  it('a stale resourceVersion is 409 Conflict; a retry from a fresh read succeeds', async () => {
    const created = await createWorkflow(workflow('wf-put'));
    const mine = structuredClone(created);
    // Another writer gets there first.
    const theirs = structuredClone(created);
    (theirs.spec as JsonObject).templateRef = 'provision-image';
    const won = (await api.replaceNamespacedCustomObject({ ...TINK, namespace: NS, plural: 'workflows', name: 'wf-put', body: theirs })) as JsonObject;
    expect(Number(meta(won).resourceVersion)).toBeGreaterThan(Number(meta(created).resourceVersion));
    expect(meta(won).generation).toBe(2);

    (mine.spec as JsonObject).hardwareRef = 'node-2';
    const { code, status } = await failure(api.replaceNamespacedCustomObject({ ...TINK, namespace: NS, plural: 'workflows', name: 'wf-put', body: mine }));
    expect(code).toBe(409);
    expect(status).toMatchObject({
      reason: 'Conflict',
      message: `Operation cannot be fulfilled on workflows.tinkerbell.org "wf-put": ${CONFLICT_MESSAGE}`,
      details: { name: 'wf-put', group: 'tinkerbell.org', kind: 'workflows' },
    });

    const fresh = await getWorkflow('wf-put');
    (fresh.spec as JsonObject).hardwareRef = 'node-2';
    const retried = (await api.replaceNamespacedCustomObject({ ...TINK, namespace: NS, plural: 'workflows', name: 'wf-put', body: fresh })) as JsonObject;
    expect(retried.spec).toMatchObject({ templateRef: 'provision-image', hardwareRef: 'node-2' });
    expect(meta(retried).generation).toBe(3);
  });

  it('without a resourceVersion a custom resource is not updated: 422 (AllowUnconditionalUpdate is false for CRs)', async () => {
    const created = await createWorkflow(workflow('wf-unconditional'));
    delete meta(created).resourceVersion;
    const { code, status } = await failure(
      api.replaceNamespacedCustomObject({ ...TINK, namespace: NS, plural: 'workflows', name: 'wf-unconditional', body: created }),
    );
    expect(code).toBe(422);
    expect(status.message).toBe(
      'workflows.tinkerbell.org "wf-unconditional" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update',
    );
  });

  it('metadata changes do not move the generation; an identical write does not move the resourceVersion', async () => {
    const created = await createWorkflow(workflow('wf-meta'));
    meta(created).annotations = { 'fleet.example/run': 'r1' };
    const annotated = (await api.replaceNamespacedCustomObject({ ...TINK, namespace: NS, plural: 'workflows', name: 'wf-meta', body: created })) as JsonObject;
    expect(meta(annotated).generation).toBe(1);
    expect(meta(annotated).resourceVersion).not.toBe(meta(created).resourceVersion);
    const again = (await api.replaceNamespacedCustomObject({ ...TINK, namespace: NS, plural: 'workflows', name: 'wf-meta', body: annotated })) as JsonObject;
    expect(again).toEqual(annotated);
  });

  it('a name that differs from the URL is 400, a missing object 404', async () => {
    const created = await createWorkflow(workflow('wf-rename'));
    meta(created).name = 'wf-other';
    const renamed = await failure(api.replaceNamespacedCustomObject({ ...TINK, namespace: NS, plural: 'workflows', name: 'wf-rename', body: created }));
    expect([renamed.code, renamed.status.message]).toEqual([400, 'the name of the object (wf-other) does not match the name on the URL (wf-rename)']);
    const missing = await failure(api.replaceNamespacedCustomObject({ ...TINK, namespace: NS, plural: 'workflows', name: 'wf-other', body: created }));
    expect(missing.code).toBe(404);
  });
});

describe('merge patch (RFC 7386)', () => {
  it('needs the merge-patch Content-Type: client-node sends application/json-patch+json by default', async () => {
    await createWorkflow(workflow('wf-default-patch'));
    const { code, status } = await failure(patchWorkflow('wf-default-patch', { spec: { templateRef: 'x' } }));
    expect([code, status.message]).toEqual([400, 'json: cannot unmarshal object into Go value of type jsonpatch.Patch']);
    expect(fake.requests.at(-1)?.contentType).toBe('application/json-patch+json');
  });

  it('null deletes, objects merge, arrays replace', async () => {
    await createWorkflow(workflow('wf-merge', { spec: { templateRef: 'provision', hardwareMap: { device_1: 'm1', disk: '/dev/sda' }, list: [1, 2, 3] } }));
    const patched = await patchWorkflow('wf-merge', { spec: { hardwareMap: { disk: null, extra: 'x' }, list: [9] } }, MERGE);
    expect(patched.spec).toEqual({ templateRef: 'provision', hardwareMap: { device_1: 'm1', extra: 'x' }, list: [9] });
    expect(meta(patched).generation).toBe(2);
    expect(fake.requests.at(-1)).toMatchObject({ verb: 'patch', resource: 'workflows', contentType: 'application/merge-patch+json', status: 200 });
  });

  it('a resourceVersion in the patch is a precondition', async () => {
    const created = await createWorkflow(workflow('wf-merge-rv'));
    const rv = meta(created).resourceVersion as string;
    const body = (templateRef: string) => ({ metadata: { resourceVersion: rv }, spec: { templateRef } });
    await patchWorkflow('wf-merge-rv', body('first'), MERGE);
    const { code, status } = await failure(patchWorkflow('wf-merge-rv', body('second'), MERGE));
    expect([code, status.reason]).toEqual([409, 'Conflict']);
    expect(((await getWorkflow('wf-merge-rv')).spec as JsonObject).templateRef).toBe('first');
  });
});

describe('JSON patch (RFC 6902)', () => {
  it('add, replace, remove and test', async () => {
    await createWorkflow(workflow('wf-jsonpatch'));
    const patched = await patchWorkflow(
      'wf-jsonpatch',
      [
        { op: 'test', path: '/spec/templateRef', value: 'provision' },
        { op: 'replace', path: '/spec/templateRef', value: 'provision-image' },
        { op: 'add', path: '/metadata/labels/fleet.example~1run', value: 'r7' },
        { op: 'remove', path: '/spec/hardwareRef' },
      ],
      JSON_PATCH,
    );
    expect(patched.spec).toEqual({ templateRef: 'provision-image', hardwareMap: { device_1: '52:54:00:12:34:56' } });
    expect(meta(patched).labels).toEqual({ 'fleet.example/node': 'node-1', 'fleet.example/run': 'r7' });
  });

  it('a failing test is 422 and changes nothing', async () => {
    const created = await createWorkflow(workflow('wf-jsonpatch-test'));
    const { code, status } = await failure(
      patchWorkflow(
        'wf-jsonpatch-test',
        [
          { op: 'replace', path: '/spec/templateRef', value: 'x' },
          { op: 'test', path: '/spec/hardwareRef', value: 'node-9' },
        ],
        JSON_PATCH,
      ),
    );
    expect([code, status.reason, status.message]).toEqual([422, 'Invalid', 'the server rejected our request due to an error in our request']);
    expect(await getWorkflow('wf-jsonpatch-test')).toEqual(created);
  });
});

describe('the status subresource', () => {
  it('a write to /status changes only .status, and not the generation', async () => {
    const created = await createWorkflow(workflow('wf-status'));
    const patched = (await api.patchNamespacedCustomObjectStatus(
      { ...TINK, namespace: NS, plural: 'workflows', name: 'wf-status', body: { status: { state: 'STATE_RUNNING' }, spec: { templateRef: 'ignored' } } },
      MERGE,
    )) as JsonObject;
    expect(patched.status).toEqual({ state: 'STATE_RUNNING' });
    expect(patched.spec).toEqual(created.spec);
    expect(meta(patched).generation).toBe(1);
    expect(Number(meta(patched).resourceVersion)).toBeGreaterThan(Number(meta(created).resourceVersion));
    expect(fake.countBy()['patch workflows/status']).toBeGreaterThanOrEqual(1);

    const replaced = (await api.replaceNamespacedCustomObjectStatus({
      ...TINK,
      namespace: NS,
      plural: 'workflows',
      name: 'wf-status',
      body: { ...patched, status: { state: 'STATE_SUCCESS' }, metadata: { ...meta(patched), labels: { ignored: 'yes' } } },
    })) as JsonObject;
    expect(replaced.status).toEqual({ state: 'STATE_SUCCESS' });
    expect(meta(replaced).labels).toEqual(meta(created).labels);
  });

  it('a write to the resource leaves .status as stored', async () => {
    await createWorkflow(workflow('wf-main'));
    const withStatus = (await api.patchNamespacedCustomObjectStatus(
      { ...TINK, namespace: NS, plural: 'workflows', name: 'wf-main', body: { status: { state: 'STATE_PENDING' } } },
      MERGE,
    )) as JsonObject;

    const onlyStatus = await patchWorkflow('wf-main', { status: { state: 'STATE_SUCCESS' } }, MERGE);
    expect(onlyStatus).toEqual(withStatus); // nothing to write: same resourceVersion

    const body = { ...withStatus, status: { state: 'STATE_FAILED' }, spec: { ...(withStatus.spec as JsonObject), templateRef: 'provision-image' } };
    const replaced = (await api.replaceNamespacedCustomObject({ ...TINK, namespace: NS, plural: 'workflows', name: 'wf-main', body })) as JsonObject;
    expect(replaced.status).toEqual({ state: 'STATE_PENDING' });
    expect(meta(replaced).generation).toBe(2);
  });

  it('Tinkerbell and Rufio writing as other clients (put), seen by the client', async () => {
    const created = await createWorkflow(workflow('wf-tink'));
    fake.put({ ...created, status: { state: 'STATE_RUNNING', currentState: { actionName: 'wipe-disk' } } });
    const seen = await getWorkflow('wf-tink');
    expect(seen.status).toEqual({ state: 'STATE_RUNNING', currentState: { actionName: 'wipe-disk' } });
    expect(meta(seen).generation).toBe(1);
    // fleet's read from before Tinkerbell's write is stale now.
    const stale = await failure(api.replaceNamespacedCustomObject({ ...TINK, namespace: NS, plural: 'workflows', name: 'wf-tink', body: created }));
    expect(stale.code).toBe(409);

    fake.put({
      apiVersion: 'bmc.tinkerbell.org/v1alpha1',
      kind: 'Machine',
      metadata: { name: 'node-1', namespace: NS },
      spec: { connection: { host: '10.0.1.11', providerOptions: { intelAMT: { port: 16992 } } } },
      status: { powerState: 'off' },
    });
    const machine = (await api.getNamespacedCustomObjectStatus({ ...BMC, namespace: NS, plural: 'machines', name: 'node-1' })) as JsonObject;
    expect(machine.status).toEqual({ powerState: 'off' });
    expect(fake.objects('bmc.tinkerbell.org', 'machines', NS)).toHaveLength(1);
  });
});

describe('delete', () => {
  it('answers a Status naming what was deleted; then 404', async () => {
    const created = await createWorkflow(workflow('wf-delete'));
    const answer = (await api.deleteNamespacedCustomObject({
      ...TINK,
      namespace: NS,
      plural: 'workflows',
      name: 'wf-delete',
      propagationPolicy: 'Background',
    })) as JsonObject;
    expect(answer).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'wf-delete', group: 'tinkerbell.org', kind: 'workflows', uid: meta(created).uid },
    });
    expect((await failure(getWorkflow('wf-delete'))).code).toBe(404);
    expect((await failure(api.deleteNamespacedCustomObject({ ...TINK, namespace: NS, plural: 'workflows', name: 'wf-delete' }))).code).toBe(404);
  });

  it('with finalizers, marks the object and answers it; removing the last finalizer deletes it', async () => {
    await createWorkflow(workflow('wf-final', { metadata: { name: 'wf-final', finalizers: ['tinkerbell.org/cleanup'] } }));
    const marked = (await api.deleteNamespacedCustomObject({ ...TINK, namespace: NS, plural: 'workflows', name: 'wf-final' })) as JsonObject;
    expect(meta(marked).deletionTimestamp).toMatch(/Z$/);
    expect(meta(marked).generation).toBe(2);
    const stillThere = await getWorkflow('wf-final');
    expect(stillThere).toEqual(marked);

    const added = await failure(patchWorkflow('wf-final', { metadata: { finalizers: ['tinkerbell.org/cleanup', 'fleet.example/x'] } }, MERGE));
    expect([added.code, added.status.reason]).toEqual([422, 'Invalid']);

    await patchWorkflow('wf-final', { metadata: { finalizers: null } }, MERGE);
    expect((await failure(getWorkflow('wf-final'))).code).toBe(404);
  });

  it('Foreground answers the object with the GC finalizer; a bad propagationPolicy is 422; preconditions are checked', async () => {
    await createWorkflow(workflow('wf-fg'));
    const answer = (await api.deleteNamespacedCustomObject({
      ...TINK,
      namespace: NS,
      plural: 'workflows',
      name: 'wf-fg',
      propagationPolicy: 'Foreground',
    })) as JsonObject;
    expect(meta(answer).finalizers).toEqual(['foregroundDeletion']);
    expect((await failure(getWorkflow('wf-fg'))).code).toBe(404);

    const created = await createWorkflow(workflow('wf-policy'));
    const bad = await failure(
      api.deleteNamespacedCustomObject({ ...TINK, namespace: NS, plural: 'workflows', name: 'wf-policy', propagationPolicy: 'Eventually' }),
    );
    expect([bad.code, bad.status.message]).toEqual([
      422,
      'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Eventually": supported values: "Foreground", "Background", "Orphan", "nil"',
    ]);
    const pre = await failure(
      api.deleteNamespacedCustomObject({ ...TINK, namespace: NS, plural: 'workflows', name: 'wf-policy', body: { preconditions: { resourceVersion: '1' } } }),
    );
    expect([pre.code, pre.status.message]).toEqual([
      409,
      `Operation cannot be fulfilled on workflows.tinkerbell.org "wf-policy": Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: ${String(meta(created).resourceVersion)}`,
    ]);
  });

  it('a collection delete answers the objects it deleted', async () => {
    for (const name of ['job-a', 'job-b', 'job-keep']) {
      await api.createNamespacedCustomObject({
        ...BMC,
        namespace: NS,
        plural: 'jobs',
        body: {
          apiVersion: 'bmc.tinkerbell.org/v1alpha1',
          kind: 'Job',
          metadata: { name, labels: { 'fleet.example/power-cycle': name === 'job-keep' ? 'no' : 'yes' } },
          spec: { machineRef: { name: 'node-1', namespace: NS }, tasks: [{ powerAction: 'off' }] },
        },
      });
    }
    const deleted = (await api.deleteCollectionNamespacedCustomObject({
      ...BMC,
      namespace: NS,
      plural: 'jobs',
      labelSelector: 'fleet.example/power-cycle=yes',
    })) as JsonObject;
    expect(deleted.kind).toBe('JobList');
    expect((deleted.items as JsonObject[]).map((i) => meta(i).name)).toEqual(['job-a', 'job-b']);
    expect(fake.objects('bmc.tinkerbell.org', 'jobs', NS).map((o) => meta(o).name)).toEqual(['job-keep']);
  });
});

describe('leases (coordination.k8s.io/v1)', () => {
  let leases: CoordinationV1Api;
  beforeAll(() => {
    leases = kc.makeApiClient(CoordinationV1Api);
  });
  const lease = (name: string, holder: string, time: Date): V1Lease => ({
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name },
    spec: { holderIdentity: holder, leaseDurationSeconds: 15, acquireTime: time, renewTime: time },
  });

  it('create and update with resourceVersion; a stale one is 409', async () => {
    const t = new V1MicroTime('2026-01-02T03:04:05.678Z');
    const created = await leases.createNamespacedLease({ namespace: NS, body: lease('fleetd-leader', 'fleetd-a', t) });
    expect(created.metadata?.resourceVersion).toMatch(/^\d+$/);
    expect(created.metadata?.generation).toBeUndefined();
    // client-node has no deserializer for MicroTime: it comes back as the server's string.
    expect(created.spec?.renewTime as unknown).toBe('2026-01-02T03:04:05.678000Z');

    const renewed = await leases.replaceNamespacedLease({
      name: 'fleetd-leader',
      namespace: NS,
      body: { ...created, spec: { ...created.spec, renewTime: new V1MicroTime('2026-01-02T03:04:15.000Z') } },
    });
    expect(renewed.spec?.renewTime as unknown).toBe('2026-01-02T03:04:15.000000Z');

    const { code, status } = await failure(
      leases.replaceNamespacedLease({
        name: 'fleetd-leader',
        namespace: NS,
        body: { ...created, spec: { ...created.spec, holderIdentity: 'fleetd-b' } },
      }),
    );
    expect(code).toBe(409);
    expect(status).toMatchObject({
      reason: 'Conflict',
      details: { name: 'fleetd-leader', group: 'coordination.k8s.io', kind: 'leases' },
    });
    expect((await leases.readNamespacedLease({ name: 'fleetd-leader', namespace: NS })).spec?.holderIdentity).toBe('fleetd-a');
  });

  it('a plain Date (three fractional digits) is not a MicroTime: 400', async () => {
    const { code, status } = await failure(
      leases.createNamespacedLease({ namespace: NS, body: lease('fleetd-date', 'fleetd-a', new Date('2026-01-02T03:04:05.678Z')) }),
    );
    expect(code).toBe(400);
    expect(status.message).toBe(
      'Lease in version "v1" cannot be handled as a Lease: parsing time "2026-01-02T03:04:05.678Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".678Z" as ".000000"',
    );
  });

  it('a PUT to a missing Lease creates it (AllowCreateOnUpdate); leaseDurationSeconds must be positive', async () => {
    const t = new V1MicroTime();
    const created = await leases.replaceNamespacedLeaseWithHttpInfo({ name: 'fleetd-put', namespace: NS, body: lease('fleetd-put', 'fleetd-a', t) });
    expect(created.httpStatusCode).toBe(201);
    const { code, status } = await failure(
      leases.replaceNamespacedLease({
        name: 'fleetd-put',
        namespace: NS,
        body: { ...created.data, spec: { ...created.data.spec, leaseDurationSeconds: 0 } },
      }),
    );
    expect(code).toBe(422);
    expect(status.message).toBe('Lease.coordination.k8s.io "fleetd-put" is invalid: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0');
  });
});

describe('secrets (v1)', () => {
  it('stringData becomes base64 data, type defaults to Opaque, and a PUT without resourceVersion is allowed', async () => {
    const core = kc.makeApiClient(CoreV1Api);
    const created = await core.createNamespacedSecret({
      namespace: 'kube-system',
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bootstrap-token-abcdef' }, stringData: { 'token-id': 'abcdef' } },
    });
    expect(created.data).toEqual({ 'token-id': Buffer.from('abcdef').toString('base64') });
    expect(created.stringData).toBeUndefined();
    expect(created.type).toBe('Opaque');
    const { resourceVersion: _unused, ...metadata } = created.metadata ?? {};
    const replaced = await core.replaceNamespacedSecret({
      name: 'bootstrap-token-abcdef',
      namespace: 'kube-system',
      body: { ...created, metadata, stringData: { 'token-secret': '0123456789abcdef' } },
    });
    expect(Object.keys(replaced.data ?? {}).sort()).toEqual(['token-id', 'token-secret']);
    const list = await core.listNamespacedSecret({ namespace: 'kube-system', fieldSelector: 'type=Opaque' });
    expect(list.items.map((s) => s.metadata?.name)).toEqual(['bootstrap-token-abcdef']);
  });
});

describe('faults and the request log', () => {
  it('failNext answers Status bodies; a verb filter leaves other verbs alone', async () => {
    await createWorkflow(workflow('wf-fault'));
    fake.failNext(1, { status: 503, verb: 'get' });
    const listed = (await api.listNamespacedCustomObject({ ...TINK, namespace: NS, plural: 'workflows' })) as JsonObject;
    expect((listed.items as JsonObject[]).length).toBeGreaterThan(0);
    const { code, status } = await failure(getWorkflow('wf-fault'));
    expect([code, status.reason]).toEqual([503, 'ServiceUnavailable']);
    expect(fake.requests.at(-1)).toMatchObject({ verb: 'get', status: 503, fault: 'fail' });
    expect(await getWorkflow('wf-fault')).toBeDefined();

    fake.failNext(1, { status: 429 });
    const throttled = await failure(getWorkflow('wf-fault'));
    expect(throttled.code).toBe(429);
    expect(throttled.headers['retry-after']).toBe('1');
    expect(throttled.status).toMatchObject({ reason: 'TooManyRequests', details: { retryAfterSeconds: 1 } });
  });

  it('closeNext fails the request below HTTP: not an ApiException', async () => {
    fake.closeNext(1);
    let caught: unknown;
    try {
      await getWorkflow('wf-fault');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(Error);
    expect(caught).not.toBeInstanceOf(ApiException);
    expect(fake.requests.at(-1)).toMatchObject({ status: 0, fault: 'close' });
  });

  it('conflictNext answers the next write 409 Conflict; reads are untouched', async () => {
    await createWorkflow(workflow('wf-conflict'));
    fake.conflictNext(1, { resource: 'workflows' });
    await getWorkflow('wf-conflict');
    const { code, status } = await failure(patchWorkflow('wf-conflict', { spec: { templateRef: 'x' } }, MERGE));
    expect([code, status.message]).toEqual([409, `Operation cannot be fulfilled on workflows.tinkerbell.org "wf-conflict": ${CONFLICT_MESSAGE}`]);
    const retried = await patchWorkflow('wf-conflict', { spec: { templateRef: 'x' } }, MERGE);
    expect((retried.spec as JsonObject).templateRef).toBe('x');
  });

  it('delayNext still serves the request; countBy counts per verb and resource', async () => {
    const before = fake.countBy()['get workflows'] ?? 0;
    fake.delayNext(1, 50);
    await createWorkflow(workflow('wf-delay'));
    await getWorkflow('wf-delay');
    expect(fake.requests.find((r) => r.fault === 'delay')).toMatchObject({ verb: 'create', status: 201 });
    expect(fake.countBy()['get workflows']).toBe(before + 1);
  });
});

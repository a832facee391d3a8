/**
 * The NetBox client against the fake NetBox: complete listings, the filter whitelist (and why it
 * matters), PATCH merging, token refusal, retries (and the requests that must not be retried),
 * timeouts, and that the token never ends up in an error or a log line.
 */
import net from 'node:net';
import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NetBoxClient, PAGE_SIZE, type NetBoxClientOptions } from '../../verifier/netbox/client.js';
import { NetBoxError } from '../../verifier/netbox/errors.js';
import type { NetBoxDevice, NetBoxInterface, NetBoxJournalEntry, NetBoxMacAddress, NetBoxObjectChange } from '../../verifier/netbox/shapes.js';
import { FakeNetBox } from './fake-netbox.js';

let fake: FakeNetBox;
const waits: number[] = [];
const logs: string[] = [];

function client(overrides: Partial<NetBoxClientOptions> = {}): NetBoxClient {
  return new NetBoxClient({
    url: fake.url,
    token: fake.token,
    sleep: async (ms) => {
      waits.push(ms);
    },
    log: (event, fields) => logs.push(JSON.stringify({ event, ...fields })),
    ...overrides,
  });
}

async function rejection(p: Promise<unknown>): Promise<NetBoxError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(NetBoxError);
    return err as NetBoxError;
  }
  throw new Error('expected a rejection');
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  fake = await FakeNetBox.start();
});
afterAll(async () => {
  await fake.close();
});
afterEach(() => {
  fake.clearFaults();
  waits.length = 0;
  logs.length = 0;
});

const requestsSince = (n: number) => fake.requests.slice(n);

describe('listing', () => {
  it('follows next across several pages at limit=1000 and answers every object once', async () => {
    const big = await FakeNetBox.start();
    try {
      for (let i = 0; i < 2345; i++) big.addDevice({ name: `n${i}`, serial: `S${i}` });
      const c = new NetBoxClient({ url: big.url, token: big.token });
      const all = await c.list<NetBoxDevice>('dcim/devices');
      expect(all).toHaveLength(2345);
      expect(new Set(all.map((d) => d.id)).size).toBe(2345);
      const gets = big.requests.filter((r) => r.path === '/api/dcim/devices/');
      expect(gets.map((r) => new URLSearchParams(r.query).get('offset'))).toEqual([null, '1000', '2000']);
      expect(gets.every((r) => new URLSearchParams(r.query).get('limit') === String(PAGE_SIZE))).toBe(true);
    } finally {
      await big.close();
    }
  });

  it('still lists everything when NetBox caps pages below 1000 (MAX_PAGE_SIZE lowered)', async () => {
    const capped = await FakeNetBox.start({ maxPageSize: 100 });
    try {
      for (let i = 0; i < 250; i++) capped.addDevice({ name: `c${i}` });
      const all = await new NetBoxClient({ url: capped.url, token: capped.token }).list('dcim/devices');
      expect(all).toHaveLength(250);
      expect(capped.requests.filter((r) => r.path === '/api/dcim/devices/')).toHaveLength(3);
    } finally {
      await capped.close();
    }
  });

  it('keeps the filters on every page, ORs repeated values, and matches serial case-insensitively (iexact)', async () => {
    const a = fake.addDevice({ name: 'list-a', serial: 'ABC-1', status: 'planned' });
    const b = fake.addDevice({ name: 'list-b', serial: 'abc-2', status: 'planned' });
    fake.addDevice({ name: 'list-c', serial: 'ABC-3', status: 'active' });
    const c = client();
    const found = await c.list<NetBoxDevice>('dcim/devices', { serial: ['abc-1', 'ABC-2'], status: 'planned' });
    expect(found.map((d) => d.id).sort()).toEqual([a, b]);
    expect(found.map((d) => d.serial).sort()).toEqual(['ABC-1', 'abc-2']); // NetBox's iexact: compare yourself
  });

  it('uses only the query of a next link, never its host (the token never follows an answer elsewhere)', async () => {
    const seen: string[] = [];
    const stub: typeof fetch = async (input) => {
      const url = String(input);
      seen.push(url);
      const offset = new URL(url).searchParams.get('offset');
      const body =
        offset === null
          ? { count: 2, next: 'http://evil.example:9/api/dcim/devices/?limit=1000&offset=1', previous: null, results: [{ id: 1 }] }
          : { count: 2, next: null, previous: null, results: [{ id: 2 }] };
      return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const c = new NetBoxClient({ url: 'https://netbox.example', token: fake.token, fetchImpl: stub });
    expect(await c.list('dcim/devices')).toEqual([{ id: 1 }, { id: 2 }]);
    expect(seen).toEqual(['https://netbox.example/api/dcim/devices/?limit=1000', 'https://netbox.example/api/dcim/devices/?limit=1000&offset=1']);
  });

  it('refuses a next link that drops a filter (the rest would be another listing)', async () => {
    const stub: typeof fetch = async () =>
      new Response(JSON.stringify({ count: 3, next: 'https://netbox.example/api/dcim/devices/?limit=1000&offset=1', previous: null, results: [{ id: 1 }] }));
    const c = new NetBoxClient({ url: 'https://netbox.example', token: fake.token, fetchImpl: stub });
    const err = await rejection(c.list('dcim/devices', { status: 'active' }));
    expect(err.code).toBe('netbox-error');
    expect(err.message).toMatch(/drops the filter status/);
  });
});

describe('the filter whitelist', () => {
  it('NetBox itself ignores an unknown filter and answers EVERY object (why the client refuses them)', async () => {
    fake.addDevice({ name: 'typo-target', serial: 'TYPO-1' });
    const get = async (q: string): Promise<number> => {
      const res = await fetch(`${fake.apiUrl}dcim/devices/?${q}`, { headers: { Authorization: `Token ${fake.token}` } });
      return ((await res.json()) as { count: number }).count;
    };
    const everything = await get('');
    expect(everything).toBeGreaterThan(1);
    expect(await get('serial=TYPO-1')).toBe(1);
    expect(await get('seral=TYPO-1')).toBe(everything); // a typo: every device
    expect(await get('serial=')).toBe(everything); // an empty value: every device
    // And on the changelog, time__gte is no filter at all: NetBox's time filter is time_after/time_before.
    const future = '2999-01-01T00:00:00Z';
    const changes = async (q: string): Promise<number> => {
      const res = await fetch(`${fake.apiUrl}core/object-changes/?${q}`, { headers: { Authorization: `Token ${fake.token}` } });
      return ((await res.json()) as { count: number }).count;
    };
    expect(await changes(`time__gte=${future}`)).toBe(await changes(''));
    expect(await changes(`time_after=${future}`)).toBe(0);
  });

  it('refuses, before sending anything, a filter outside the whitelist or an empty value', async () => {
    const c = client();
    const before = fake.requests.length;
    const cases: Array<[Parameters<NetBoxClient['list']>[0], Record<string, unknown>, RegExp]> = [
      ['dcim/devices', { seral: 'X' }, /filter "seral" is not one the client knows for dcim\/devices/],
      ['dcim/devices', { serial: '' }, /empty/],
      ['dcim/devices', { serial: undefined }, /no value/],
      ['dcim/devices', { serial: [] }, /empty list/],
      ['dcim/devices', { status: 'broken' }, /not one of offline, active/],
      ['dcim/devices', { cf_class: 'worker' }, /not one the client knows/],
      ['dcim/devices', { limit: 5 }, /pages by itself/],
      ['dcim/interfaces', { device_id: 'abc' }, /not an object id/],
      ['dcim/interfaces', { cabled: 'yes' }, /not true or false/],
      ['dcim/mac-addresses', { mac_address: 'not-a-mac' }, /not a MAC address/],
      ['core/object-changes', { time__gte: '2025-01-01T00:00:00Z' }, /use time_after/],
      ['core/object-changes', { ordering: 'user' }, /not one of time, -time/],
      ['extras/journal-entries', { kind: 'note' }, /not one of info, success, warning, danger/],
    ];
    for (const [endpoint, filters, message] of cases) {
      const err = await rejection(c.list(endpoint, filters as never));
      expect([endpoint, err.code]).toEqual([endpoint, 'netbox-filter-refused']);
      expect(err.message).toMatch(message);
    }
    await expect(c.list('dcim/racks' as never)).rejects.toMatchObject({ code: 'netbox-filter-refused' });
    expect(fake.requests.length).toBe(before);
  });

  it('sends the whitelisted filters NetBox knows, and they filter', async () => {
    const node = fake.addDevice({ name: 'wl-node', serial: 'WL-1', customFields: { desired_action: 'provision' } });
    const nic = fake.addInterface({ deviceId: node, name: 'eno1', mac: '52:54:00:aa:00:01' });
    fake.addInterface({ deviceId: node, name: 'ipmi', mgmtOnly: true });
    fake.cableToSwitchPort(nic, { switchName: 'wl-leaf', port: 'Ethernet9' });
    const c = client();
    expect((await c.list<NetBoxDevice>('dcim/devices', { cf_desired_action: 'provision' })).map((d) => d.id)).toContain(node);
    const cabled = await c.list<NetBoxInterface>('dcim/interfaces', { device_id: node, cabled: true });
    expect(cabled.map((i) => i.name)).toEqual(['eno1']);
    expect(cabled[0]?.link_peers?.[0]?.device?.name).toBe('wl-leaf');
    const macs = await c.list<NetBoxMacAddress>('dcim/mac-addresses', { mac_address: '52:54:00:AA:00:01' });
    expect(macs.map((m) => m.assigned_object_id)).toEqual([nic]);
    const err = await rejection(c.list('dcim/interfaces', { device_id: 999999 }));
    expect(err.code).toBe('netbox-bad-request'); // NetBox: an unknown device_id is a 400, not an empty list
    expect(err.fieldErrors).toEqual({ device_id: ['Select a valid choice. 999999 is not one of the available choices.'] });
  });
});

describe('writes', () => {
  it('PATCH merges custom fields; the changelog records who changed what', async () => {
    const id = fake.addDevice({ name: 'merge-node', serial: 'M-1', customFields: { class: 'gpu', approved_ek_hash: 'a'.repeat(64) } });
    const c = client();
    const after = await c.patch<NetBoxDevice>('dcim/devices', id, { custom_fields: { attest_verdict: 'attested', attested_secure_boot: true } });
    expect(after.custom_fields).toMatchObject({ class: 'gpu', approved_ek_hash: 'a'.repeat(64), attest_verdict: 'attested', attested_secure_boot: true });
    // A second identical PATCH (a retry) records nothing (CHANGELOG_SKIP_EMPTY_CHANGES).
    await c.patch('dcim/devices', id, { custom_fields: { attest_verdict: 'attested', attested_secure_boot: true } });
    const changes = await c.list<NetBoxObjectChange>('core/object-changes', { changed_object_type: 'dcim.device', changed_object_id: id });
    expect(changes.map((ch) => [ch.action.value, ch.user_name])).toEqual([
      ['update', 'fleet'],
      ['create', 'admin'],
    ]);
    // Snapshots hold only the custom fields ever set (NetBox 4.5.10: object-change-get.json): no attest_verdict before.
    expect(changes[0]?.prechange_data?.['custom_fields']).toEqual({ class: 'gpu', approved_ek_hash: 'a'.repeat(64) });
    expect(changes[0]?.postchange_data?.['custom_fields']).toMatchObject({ attest_verdict: 'attested', class: 'gpu' });
  });

  it('a refused PATCH is a typed error carrying NetBox field errors in plain words', async () => {
    const id = fake.addDevice({ name: 'bad-patch' });
    const c = client();
    const unknown = await rejection(c.patch('dcim/devices', id, { custom_fields: { approved_ek: 'x' } }));
    expect(unknown.code).toBe('netbox-bad-request');
    expect(unknown.status).toBe(400);
    expect(unknown.fieldErrors).toEqual({ 'custom_fields.approved_ek': ["Custom field 'approved_ek' does not exist for this object type."] });
    expect(unknown.message).toBe(
      `NetBox refused PATCH dcim/devices/${id}/: custom_fields.approved_ek: Custom field 'approved_ek' does not exist for this object type.`,
    );
    const choice = await rejection(c.patch('dcim/devices', id, { custom_fields: { desired_action: 'wipe' } }));
    expect(choice.message).toMatch(/Invalid value for custom field 'desired_action': Invalid choice \(wipe\)/);
    expect(choice.fieldErrors?.['__all__']).toHaveLength(1);
    expect(waits).toEqual([]); // 400 is never retried
  });

  it('posts journal entries and MACs, sets a primary MAC, and finds them again', async () => {
    const node = fake.addDevice({ name: 'post-node' });
    const nic = fake.addInterface({ deviceId: node, name: 'enp1s0' });
    const c = client({ token: fake.tokenV2 });
    const entry = await c.post<NetBoxJournalEntry>('extras/journal-entries', {
      assigned_object_type: 'dcim.device',
      assigned_object_id: node,
      kind: 'success',
      comments: 'attest: PASSED',
    });
    expect(entry.created_by).toBe(fake.fleetUser.id);
    const listed = await c.list<NetBoxJournalEntry>('extras/journal-entries', {
      assigned_object_type: 'dcim.device',
      assigned_object_id: node,
      kind: 'success',
    });
    expect(listed.map((e) => e.id)).toEqual([entry.id]);
    const mac = await c.post<NetBoxMacAddress>('dcim/mac-addresses', {
      mac_address: '52:54:00:bb:00:02',
      assigned_object_type: 'dcim.interface',
      assigned_object_id: nic,
    });
    const iface = await c.patch<NetBoxInterface>('dcim/interfaces', nic, { primary_mac_address: mac.id });
    expect(iface.primary_mac_address?.mac_address).toBe('52:54:00:BB:00:02');
    const other = fake.addInterface({ deviceId: node, name: 'enp2s0', mac: '52:54:00:bb:00:03' });
    const stolen = await rejection(c.patch('dcim/interfaces', nic, { primary_mac_address: fake.model.interfaces.get(other)!.primary_mac_address! }));
    expect(stolen.message).toMatch(/MAC address 52:54:00:BB:00:03 is assigned to a different interface \(enp2s0\)/);
  });

  it('a custom field set by another user, and a changelog that lost its record', async () => {
    const id = fake.addDevice({ name: 'binding-node', serial: 'B-1' });
    fake.setCustomFieldAs('mallory', id, { approved_ek_hash: 'b'.repeat(64) });
    const c = client();
    const byMallory = await c.list<NetBoxObjectChange>('core/object-changes', {
      changed_object_type: 'dcim.device',
      changed_object_id: id,
      user_name: 'mallory',
    });
    expect(byMallory).toHaveLength(1);
    expect(byMallory[0]?.postchange_data?.['custom_fields']).toMatchObject({ approved_ek_hash: 'b'.repeat(64) });
    const oldestFirst = await c.list<NetBoxObjectChange>('core/object-changes', {
      changed_object_type: 'dcim.device',
      changed_object_id: id,
      ordering: 'time',
    });
    expect(oldestFirst.map((ch) => ch.user_name)).toEqual(['admin', 'mallory']);
    expect(fake.dropChangelog('dcim.device', id)).toBe(2);
    expect(await c.list('core/object-changes', { changed_object_type: 'dcim.device', changed_object_id: id })).toEqual([]);
    expect((await c.get<NetBoxDevice>('dcim/devices', id)).custom_fields['approved_ek_hash']).toBe('b'.repeat(64));
  });
});

describe('refusals', () => {
  it('403 on an unknown token, v1 and v2, as "NetBox refused the token", not retried', async () => {
    for (const [token, detail] of [
      ['0123456789abcdef0123456789abcdef01234567', 'Invalid v1 token'],
      ['nbt_AbCdEfGhIjKl.ZyXwVuTsRqPoNmLkJiHgFeDcBa0123456789ABCD', 'Invalid v2 token'],
    ] as const) {
      const before = fake.requests.length;
      const err = await rejection(client({ token }).list('dcim/devices'));
      expect(err.code).toBe('netbox-forbidden');
      expect(err.status).toBe(403);
      expect(err.message).toMatch(/^NetBox refused the token \(403 on GET dcim\/devices\/\?limit=1000: /);
      expect(err.message).toContain(detail);
      expect(requestsSince(before)).toHaveLength(1);
      expect(requestsSince(before)[0]?.authScheme).toBe(token.startsWith('nbt_') ? 'Bearer' : 'Token');
    }
  });

  it('403 on a write with a read-only token', async () => {
    const ro = fake.addToken('viewer', { version: 2, writeEnabled: false });
    const id = fake.addDevice({ name: 'ro-node' });
    const err = await rejection(client({ token: ro }).patch('dcim/devices', id, { status: 'planned' }));
    expect(err.code).toBe('netbox-forbidden');
    expect(err.message).toMatch(/You do not have permission to perform this action/);
    expect(err.message).toMatch(/read-only/);
  });

  it('404 is netbox-not-found, not retried', async () => {
    const before = fake.requests.length;
    const err = await rejection(client().get('dcim/devices', 987654));
    expect(err.code).toBe('netbox-not-found');
    expect(err.message).toBe('NetBox has no dcim/devices/987654/ (404 on GET: No Device matches the given query.)');
    expect(requestsSince(before)).toHaveLength(1);
  });
});

describe('retries', () => {
  it('retries a GET after 5xx answers, then succeeds', async () => {
    const id = fake.addDevice({ name: 'flaky' });
    fake.failNext(2, { status: 503, path: '/api/dcim/devices/' });
    const before = fake.requests.length;
    const d = await client({ retries: 3 }).get<NetBoxDevice>('dcim/devices', id);
    expect(d.name).toBe('flaky');
    expect(requestsSince(before).map((r) => r.outcome)).toEqual([503, 503, 200]);
    expect(waits).toHaveLength(2);
    expect(logs.map((l) => JSON.parse(l).reason)).toEqual(['http-503', 'http-503']);
  });

  it('gives up after the retries with a typed error naming the attempts', async () => {
    fake.failNext(10, { status: 502, path: '/api/dcim/devices/' });
    const err = await rejection(client({ retries: 2 }).list('dcim/devices'));
    expect(err.code).toBe('netbox-error');
    expect(err.status).toBe(502);
    expect(err.attempts).toBe(3);
    expect(err.message).toMatch(/502 \(an HTML page titled "502 Bad Gateway", likely from a proxy rather than NetBox's API\) after 3 attempts/);
  });

  it('retries a PATCH whose connection dropped (it is idempotent)', async () => {
    const id = fake.addDevice({ name: 'dropped' });
    fake.closeNext(1, { method: 'PATCH', afterHandling: true });
    const before = fake.requests.length;
    const d = await client().patch<NetBoxDevice>('dcim/devices', id, { custom_fields: { last_run: 'r1' } });
    expect(d.custom_fields['last_run']).toBe('r1');
    expect(requestsSince(before).map((r) => r.outcome)).toEqual(['closed', 200]);
    // The first PATCH was applied, the second changed nothing: one changelog record.
    expect(fake.changes({ type: 'dcim.device', id }).filter((c) => (c['action'] as { value: string }).value === 'update')).toHaveLength(1);
  });

  it('never sends a POST again after a 5xx: it may have been applied', async () => {
    const node = fake.addDevice({ name: 'post-5xx' });
    fake.failNext(1, { status: 502, method: 'POST', afterHandling: true });
    const before = fake.requests.length;
    const err = await rejection(client().post('extras/journal-entries', { assigned_object_type: 'dcim.device', assigned_object_id: node, comments: 'once' }));
    expect(err.code).toBe('netbox-error');
    expect(err.message).toMatch(/the POST may or may not have been applied/);
    expect(requestsSince(before)).toHaveLength(1);
    expect([...fake.model.journal.values()].filter((j) => j.assigned_object_id === node)).toHaveLength(1); // it was
  });

  it('never sends a POST again after a dropped connection', async () => {
    const node = fake.addDevice({ name: 'post-drop' });
    fake.closeNext(1, { method: 'POST' });
    const before = fake.requests.length;
    const err = await rejection(client().post('extras/journal-entries', { assigned_object_type: 'dcim.device', assigned_object_id: node, comments: 'x' }));
    expect(err.code).toBe('netbox-unreachable');
    expect(err.message).toMatch(/dropped the connection during POST extras\/journal-entries\/ \(UND_ERR_SOCKET\), after 1 attempt; the POST may or may not/);
    expect(requestsSince(before)).toHaveLength(1);
  });

  it('retries a POST whose connection was refused (NetBox never saw it)', async () => {
    const node = fake.addDevice({ name: 'post-refused' });
    const port = await closedPort();
    let calls = 0;
    const flaky: typeof fetch = (input, init) => {
      calls++;
      const url = calls === 1 ? String(input).replace(fake.url, `http://127.0.0.1:${port}`) : input;
      return fetch(url, init);
    };
    const entry = await client({ fetchImpl: flaky }).post<NetBoxJournalEntry>('extras/journal-entries', {
      assigned_object_type: 'dcim.device',
      assigned_object_id: node,
      comments: 'after a refused connection',
    });
    expect(entry.comments).toBe('after a refused connection');
    expect(calls).toBe(2);
    expect(logs.map((l) => JSON.parse(l).reason)).toEqual(['connect-failed']);
  });

  it('an unreachable NetBox is netbox-unreachable after the retries', async () => {
    const port = await closedPort();
    const err = await rejection(
      new NetBoxClient({ url: `http://127.0.0.1:${port}`, token: fake.token, retries: 2, sleep: async () => {} }).get('dcim/devices', 1),
    );
    expect(err.code).toBe('netbox-unreachable');
    expect(err.attempts).toBe(3);
    expect(err.message).toMatch(/could not be reached for GET dcim\/devices\/1\/ \(ECONNREFUSED\), after 3 attempts/);
  });

  it('bounds the total wait: a retry that would exceed it is not made', async () => {
    fake.failNext(10, { status: 503, path: '/api/dcim/cables/' });
    const err = await rejection(client({ retries: 10, backoff: { baseMs: 100, maxMs: 100, totalMs: 250 }, random: () => 0.999 }).list('dcim/cables'));
    expect(err.attempts).toBe(3); // waits of ~100 ms: two fit in 250 ms, a third would not
    expect(waits).toHaveLength(2);
  });
});

describe('timeouts', () => {
  it('a request that gets no answer in time fails as netbox-unreachable', async () => {
    fake.delayNext(1, 60_000, { path: '/api/status/' });
    const err = await rejection(client({ timeoutMs: 300, retries: 0 }).status());
    expect(err.code).toBe('netbox-unreachable');
    expect(err.message).toMatch(/did not answer GET status\/ within 300 ms, after 1 attempt/);
  });

  it('a timed-out GET is retried', async () => {
    fake.delayNext(1, 60_000, { path: '/api/status/' });
    const status = await client({ timeoutMs: 2_000, retries: 1 }).status();
    expect(status['netbox-version']).toBe(fake.version);
    expect(logs.map((l) => JSON.parse(l).reason)).toEqual(['timeout']);
  });
});

describe('the token', () => {
  it('never appears in an error, a thrown object or a log line', async () => {
    const v2 = fake.addToken('fleet', { version: 2 });
    const secret = v2.split('.')[1]!;
    const v1 = fake.token;
    const node = fake.addDevice({ name: 'secret-node' });
    const echo =
      (token: string): typeof fetch =>
      async () =>
        new Response(JSON.stringify({ detail: `Invalid token ${token} (${token.toUpperCase()})`, [token]: [token] }), { status: 400 });
    const port = await closedPort();
    const failures: Array<() => Promise<unknown>> = [];
    for (const token of [v1, v2]) {
      failures.push(
        () => client({ token: token.replace(/.$/, (ch) => (ch === 'a' ? 'b' : 'a')) }).list('dcim/devices'), // refused token
        () => client({ token }).patch('dcim/devices', node, { custom_fields: { nope: token } }), // 400 echoing it
        () => client({ token }).get('dcim/devices', 55555), // 404
        () => client({ token, fetchImpl: echo(token) }).get('dcim/devices', node), // a body that echoes the token
        () => client({ token, url: `http://127.0.0.1:${port}`, retries: 1 }).get('dcim/devices', 1), // unreachable
        () => {
          fake.failNext(5, { status: 500, body: JSON.stringify({ error: token }), path: '/api/dcim/devices/' });
          return client({ token, retries: 1 }).get('dcim/devices', node);
        },
        () => {
          fake.delayNext(1, 60_000, { path: '/api/status/' });
          return client({ token, timeoutMs: 100, retries: 0 }).status();
        },
        () => client({ token }).list('dcim/devices', { serial_number: token }), // refused filter
      );
    }
    failures.push(() => Promise.resolve().then(() => new NetBoxClient({ url: fake.url, token: `${v1}x` }))); // malformed token
    let n = 0;
    for (const fail of failures) {
      const err = await rejection(fail());
      n++;
      const surfaces = [err.message, String(err), JSON.stringify(err), inspect(err, { depth: Infinity, showHidden: true }), err.stack ?? ''];
      for (const s of surfaces) {
        for (const t of [v1, v2, secret]) expect(s.toLowerCase().includes(t.toLowerCase()), `failure #${n}: ${s.slice(0, 300)}`).toBe(false);
      }
      fake.clearFaults();
    }
    expect(logs.length).toBeGreaterThan(0);
    for (const line of logs) for (const t of [v1, v2, secret]) expect(line.includes(t)).toBe(false);
    const c = client({ token: v2 });
    for (const s of [JSON.stringify(c), inspect(c, { showHidden: true, depth: Infinity }), String(c)]) expect(s.includes(secret)).toBe(false);
  });

  it('is sent as Token for v1 and Bearer for v2', async () => {
    const before = fake.requests.length;
    await client({ token: fake.token }).status();
    await client({ token: ` ${fake.tokenV2}\n` }).status(); // as read from a file
    expect(requestsSince(before).map((r) => r.authScheme)).toEqual(['Token', 'Bearer']);
  });
});

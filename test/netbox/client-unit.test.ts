/**
 * The client's pieces on their own: token parsing, URL rules, the filter query, the backoff, the
 * flattening of NetBox's error bodies, and answers only a misconfigured setup produces.
 */
import { describe, expect, it } from 'vitest';
import { NetBoxClient } from '../../verifier/netbox/client.js';
import { describeFieldErrors, flattenFieldErrors, type NetBoxError } from '../../verifier/netbox/errors.js';
import { allowedFilters, buildFilterQuery, NETBOX_ENDPOINTS } from '../../verifier/netbox/filters.js';
import { isConnectFailure, isRetryable, makeBackoff } from '../../verifier/netbox/retry.js';
import { parseToken, REDACTED } from '../../verifier/netbox/token.js';
import { thrown } from './thrown.js';

const V1 = '9fc9b897abec9ada2da6aec9dbc34596293c9cb9';
const V2 = 'nbt_AbCdEfGh1234.s3cr3tS3CR3Ts3cr3tS3CR3Ts3cr3tS3CR3Ts3cr3tXY';

describe('tokens', () => {
  it('tells v1 from v2 and builds the header', () => {
    expect(parseToken(V1)).toMatchObject({ version: 1, header: `Token ${V1}` });
    expect(parseToken(V2)).toMatchObject({ version: 2, header: `Bearer ${V2}` });
    expect(parseToken(`  ${V2}\n`).header).toBe(`Bearer ${V2}`);
  });

  it('refuses anything else without echoing it', () => {
    for (const bad of ['', 'Token abc', V1.slice(1), `${V1}0`, 'nbt_nodot', 'nbt_key.with-dash', `Bearer ${V2}`]) {
      const err = thrown(() => parseToken(bad));
      expect(err.code).toBe('netbox-config-invalid');
      if (bad.length > 8) expect(err.message.includes(bad.trim())).toBe(false);
    }
  });

  it('redacts the token, its v2 secret, and case variants', () => {
    const t = parseToken(V2);
    const secret = V2.split('.')[1]!;
    expect(t.redact(`a ${V2} b ${secret} c ${secret.toLowerCase()}`)).toBe(`a ${REDACTED} b ${REDACTED} c ${REDACTED}`);
    expect(parseToken(V1).redact(V1.toUpperCase())).toBe(REDACTED);
  });
});

describe('the URL', () => {
  const make = (url: string, allowPlainHttp = false) => new NetBoxClient({ url, token: V1, allowPlainHttp });
  it('finds the API root', () => {
    expect(make('https://netbox.example').apiUrl).toBe('https://netbox.example/api/');
    expect(make('https://netbox.example/').apiUrl).toBe('https://netbox.example/api/');
    expect(make('https://netbox.example/api').apiUrl).toBe('https://netbox.example/api/');
    expect(make('https://netbox.example/netbox/api/').apiUrl).toBe('https://netbox.example/netbox/api/');
    expect(make('http://127.0.0.1:8000').apiUrl).toBe('http://127.0.0.1:8000/api/');
    expect(make('http://netbox.lab', true).apiUrl).toBe('http://netbox.lab/api/');
  });

  it('refuses plain http off loopback, credentials in the URL, and non-URLs', () => {
    expect(thrown(() => make('http://netbox.lab')).message).toMatch(/plain http to another machine/);
    expect(thrown(() => make('https://user:pw@netbox.lab')).message).toMatch(/must not hold a user name or password/);
    expect(thrown(() => make('netbox.lab')).code).toBe('netbox-config-invalid');
    expect(thrown(() => make('https://netbox.lab/?x=1')).code).toBe('netbox-config-invalid');
    expect(thrown(() => new NetBoxClient({ url: 'https://netbox.lab', token: V1, timeoutMs: 0 })).code).toBe('netbox-config-invalid');
  });
});

describe('the filter query', () => {
  it('repeats list values, renders booleans and ids, and covers every endpoint fleet uses', () => {
    expect(buildFilterQuery('dcim/devices', { serial: ['A', 'B'], status: 'active', id: 7 }).toString()).toBe('serial=A&serial=B&status=active&id=7');
    expect(buildFilterQuery('dcim/interfaces', { device_id: '12', cabled: false }).toString()).toBe('device_id=12&cabled=false');
    expect(buildFilterQuery('core/object-changes', { time_after: '2025-01-01T00:00:00Z', ordering: '-time' }).toString()).toBe(
      'time_after=2025-01-01T00%3A00%3A00Z&ordering=-time',
    );
    expect(NETBOX_ENDPOINTS.map((e) => [e, allowedFilters(e)])).toEqual([
      ['dcim/devices', ['id', 'name', 'serial', 'status', 'cf_desired_action']],
      ['dcim/interfaces', ['id', 'device_id', 'name', 'cabled']],
      ['dcim/mac-addresses', ['id', 'mac_address', 'assigned_object_type', 'assigned_object_id']],
      ['dcim/cables', ['id']],
      ['extras/journal-entries', ['id', 'assigned_object_type', 'assigned_object_id', 'kind']],
      ['core/object-changes', ['id', 'changed_object_type', 'changed_object_id', 'user_name', 'action', 'request_id', 'time_after', 'time_before', 'ordering']],
    ]);
  });

  it('refuses prototype keys and ids that are not positive integers', () => {
    expect(thrown(() => buildFilterQuery('dcim/devices', JSON.parse('{"__proto__": "x"}'))).code).toBe('netbox-filter-refused');
    expect(thrown(() => buildFilterQuery('dcim/devices', { constructor: 'x' })).code).toBe('netbox-filter-refused');
    for (const id of [0, -1, 1.5, '07', 'x']) expect(thrown(() => buildFilterQuery('dcim/devices', { id })).code).toBe('netbox-filter-refused');
  });
});

describe('retry rules', () => {
  it('retries GET and PATCH after 5xx or a lost connection; POST only when no connection was made', () => {
    expect([isRetryable('GET', 'server-error'), isRetryable('PATCH', 'lost'), isRetryable('POST', 'connect-failed')]).toEqual([true, true, true]);
    expect([isRetryable('POST', 'server-error'), isRetryable('POST', 'lost')]).toEqual([false, false]);
  });

  it('tells a refused connection from one that broke after sending', () => {
    const fetchFailed = (code: string) => Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(code), { code }) });
    expect(isConnectFailure(fetchFailed('ECONNREFUSED'))).toBe(true);
    expect(isConnectFailure(fetchFailed('ENOTFOUND'))).toBe(true);
    expect(isConnectFailure(fetchFailed('UND_ERR_SOCKET'))).toBe(false);
    expect(isConnectFailure(new Error('something else'))).toBe(false);
    const aggregate = Object.assign(new TypeError('fetch failed'), {
      cause: new AggregateError([Object.assign(new Error('a'), { code: 'ECONNREFUSED' }), Object.assign(new Error('b'), { code: 'EHOSTUNREACH' })]),
    });
    expect(isConnectFailure(aggregate)).toBe(true);
  });

  it('waits exponentially, with jitter in [0.5, 1), capped', () => {
    const low = makeBackoff({ baseMs: 100, maxMs: 1000 }, () => 0);
    const high = makeBackoff({ baseMs: 100, maxMs: 1000 }, () => 0.999999);
    expect([1, 2, 3, 4, 5, 6].map((n) => low.delay(n))).toEqual([50, 100, 200, 400, 500, 500]);
    expect([1, 2, 3, 4, 5, 6].map((n) => high.delay(n))).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(makeBackoff().totalMs).toBe(15_000);
  });
});

describe('NetBox error bodies', () => {
  it('flattens field, custom field, object-level and bulk errors into plain words', () => {
    const body = {
      status: ['broken is not a valid choice.'],
      custom_fields: { bogus: "Custom field 'bogus' does not exist for this object type." },
      __all__: ["Invalid value for custom field 'desired_action': Invalid choice (x) for choice set S."],
    };
    const flat = flattenFieldErrors(body);
    expect(flat).toEqual({
      status: ['broken is not a valid choice.'],
      'custom_fields.bogus': ["Custom field 'bogus' does not exist for this object type."],
      __all__: ["Invalid value for custom field 'desired_action': Invalid choice (x) for choice set S."],
    });
    expect(describeFieldErrors(flat)).toBe(
      "status: broken is not a valid choice.; custom_fields.bogus: Custom field 'bogus' does not exist for this object type.; " +
        "Invalid value for custom field 'desired_action': Invalid choice (x) for choice set S.",
    );
    expect(flattenFieldErrors([{}, { name: ['This field is required.'] }])).toEqual({ '[1].name': ['This field is required.'] });
    expect(flattenFieldErrors({ non_field_errors: ['Invalid assigned_object: dcim.device ID 9'] })).toEqual({
      non_field_errors: ['Invalid assigned_object: dcim.device ID 9'],
    });
  });
});

describe('answers of a misconfigured setup', () => {
  const answering = (status: number, body: string, headers: Record<string, string> = {}) =>
    new NetBoxClient({ url: 'https://netbox.example', token: V1, retries: 0, fetchImpl: async () => new Response(body, { status, headers }) });

  it('a redirect is reported, not followed with the token', async () => {
    const err = await answering(301, '', { location: 'http://netbox.example/api/dcim/devices/1/?x=1' })
      .get('dcim/devices', 1)
      .catch((e: NetBoxError) => e);
    expect(err).toMatchObject({ code: 'netbox-error', status: 301 });
    expect((err as NetBoxError).message).toMatch(/redirected GET dcim\/devices\/1\/ to http:\/\/netbox.example\/api\/dcim\/devices\/1\/ \(301\)/);
  });

  it('a 200 that is not JSON (a login page) is reported as such', async () => {
    const err = await answering(200, '<html><title>Login</title></html>', { 'content-type': 'text/html' })
      .get('dcim/devices', 1)
      .catch((e: NetBoxError) => e);
    expect((err as NetBoxError).message).toMatch(/answered GET dcim\/devices\/1\/ with 200 but not JSON \(an HTML page titled "Login"/);
  });

  it('other 4xx are netbox-error with the status', async () => {
    const err = await answering(429, '{"detail": "Request was throttled."}')
      .get('dcim/devices', 1)
      .catch((e: NetBoxError) => e);
    expect(err).toMatchObject({ code: 'netbox-error', status: 429 });
    expect((err as NetBoxError).message).toBe('NetBox answered GET dcim/devices/1/ with 429: Request was throttled.');
  });

  it('refuses bad ids and bodies before sending', async () => {
    let sent = 0;
    const c = new NetBoxClient({ url: 'https://netbox.example', token: V1, fetchImpl: async () => (sent++, new Response('{}')) });
    await expect(c.get('dcim/devices', 0)).rejects.toMatchObject({ code: 'netbox-filter-refused' });
    await expect(c.patch('dcim/devices', 1, [] as never)).rejects.toMatchObject({ code: 'netbox-filter-refused' });
    await expect(c.post('dcim/racks' as never, {})).rejects.toMatchObject({ code: 'netbox-filter-refused' });
    expect(sent).toBe(0);
  });
});

/**
 * The fake NetBox answers with the shapes real NetBox answers with: compared, by key set and JSON
 * type, with responses recorded from NetBox's own documentation (4.6) and pynetbox's fixtures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseToken, tokenFromProvisionResponse } from '../../verifier/netbox/token.js';
import { FakeNetBox } from './fake-netbox.js';
import { changedKeys, NETBOX_DATETIME, recorded, shape } from './recorded.js';

let fake: FakeNetBox;

async function api(method: string, path: string, body?: unknown, token: string | null = null): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const t = token ?? fake.token;
  if (t) headers['Authorization'] = t.startsWith('nbt_') ? `Bearer ${t}` : `Token ${t}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(fake.apiUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

beforeAll(async () => {
  fake = await FakeNetBox.start();
  for (let i = 1; i <= 60; i++) fake.addDevice({ name: `node-${String(i).padStart(2, '0')}`, serial: `SN${i}`, primaryIp4: `10.0.0.${i}/24` });
});
afterAll(async () => {
  await fake.close();
});

describe('the pagination envelope', () => {
  const rec = recorded<{ count: number; next: null; previous: null; results: unknown[] }>('pynetbox/dcim/devices.json');

  it('has the recorded keys and types, with absolute next/previous links', async () => {
    const first = await api('GET', 'dcim/devices/');
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(Object.keys(rec).sort());
    expect(shape(first.body)).toEqual({ ...shape(rec), next: 'string' }); // 60 devices: a second page
    expect(first.body.count).toBe(60);
    expect(first.body.results).toHaveLength(50); // PAGINATE_COUNT
    expect(first.body.next).toBe(`${fake.url}/api/dcim/devices/?limit=50&offset=50`);

    const second = await api('GET', 'dcim/devices/?limit=50&offset=50');
    expect(second.body.results).toHaveLength(10);
    expect(second.body.next).toBeNull();
    expect(second.body.previous).toBe(`${fake.url}/api/dcim/devices/?limit=50`);
    // Each listed object, like each recorded one, is a whole object with an integer id.
    for (const r of [...rec.results, ...first.body.results]) expect(Number.isInteger((r as { id: unknown }).id)).toBe(true);
  });

  it('keeps the filters in next, sorted as DRF sorts them', async () => {
    const page = await api('GET', 'dcim/devices/?status=active&limit=20');
    expect(page.body.next).toBe(`${fake.url}/api/dcim/devices/?limit=20&offset=20&status=active`);
  });

  it('caps limit at MAX_PAGE_SIZE (1000) without an error, and limit=0 means MAX_PAGE_SIZE', async () => {
    const many = await FakeNetBox.start();
    try {
      for (let i = 0; i < 1005; i++) many.addDevice({ name: `d${i}` });
      for (const limit of ['5000', '0', '1000']) {
        const res = await fetch(`${many.apiUrl}dcim/devices/?limit=${limit}`, { headers: { Authorization: `Token ${many.token}` } });
        const body = (await res.json()) as { results: unknown[]; next: string };
        expect(res.status).toBe(200);
        expect(body.results).toHaveLength(1000);
        expect(body.next).toBe(`${many.url}/api/dcim/devices/?limit=1000&offset=1000`);
      }
    } finally {
      await many.close();
    }
  });
});

describe('a full 4.6 object', () => {
  const full = recorded('netbox-docs/prefix-13980-full.json');
  const briefRec = recorded('netbox-docs/prefix-13980-brief.json');
  /** The fields every NetBox primary model has in 4.6 (NetBoxModelSerializer + PrimaryModel). */
  const COMMON = ['id', 'url', 'display_url', 'display', 'status', 'description', 'comments', 'tags', 'custom_fields', 'created', 'last_updated'];

  it('has the fields every recorded 4.6 object has, with the same JSON types', async () => {
    const { body: device } = await api('GET', 'dcim/devices/1/');
    const want = shape(full);
    const got = shape(device);
    for (const k of COMMON) expect([k, got[k]]).toEqual([k, want[k]]);
    expect(Object.keys(device.status).sort()).toEqual(Object.keys(full['status'] as object).sort());
    expect(shape(device.status)).toEqual(shape(full['status']));
    expect(device.created).toMatch(NETBOX_DATETIME);
    expect(full['created']).toMatch(NETBOX_DATETIME);
    expect(device.url).toBe(`${fake.url}/api/dcim/devices/1/`);
    expect(device.display_url).toBe(`${fake.url}/dcim/devices/1/`);
  });

  it('nests related objects in the recorded brief shape (the site is shaped like the prefix scope)', async () => {
    const { body: device } = await api('GET', 'dcim/devices/1/');
    expect(shape(device.site)).toEqual(shape(full['scope']));
    // ?brief=true: every brief object has id, url, display, description (and its own identifying fields).
    const { body } = await api('GET', 'dcim/devices/?brief=true&limit=1');
    const brief = body.results[0] as Record<string, unknown>;
    expect(Object.keys(brief).sort()).toEqual(['description', 'display', 'id', 'name', 'url']);
    for (const k of ['id', 'url', 'display', 'description']) expect(shape(brief)[k]).toBe(shape(briefRec)[k]);
  });

  it('carries every custom field defined on the model, null when unset', async () => {
    const { body: device } = await api('GET', 'dcim/devices/1/');
    expect(Object.keys(device.custom_fields)).toContain('desired_action');
    expect(device.custom_fields.attested_secure_boot).toBeNull();
    expect(Object.keys(device.custom_fields)).toHaveLength(16);
  });
});

describe('PATCH', () => {
  it('changes only what is sent (and last_updated), as the recorded prefix PATCH does', async () => {
    const before = recorded('netbox-docs/prefix-18691-created.json');
    const after = recorded('netbox-docs/prefix-18691-after-patch-status-reserved.json');
    const recordedChange = changedKeys(before, after);
    expect(recordedChange).toEqual(['last_updated', 'status']);

    const id = fake.addDevice({ name: 'patch-me', customFields: { class: 'worker' } });
    const { body: mine } = await api('GET', `dcim/devices/${id}/`);
    const patched = await api('PATCH', `dcim/devices/${id}/`, { status: 'planned' });
    expect(patched.status).toBe(200);
    expect(changedKeys(mine, patched.body)).toEqual(recordedChange);
    expect(patched.body.status).toEqual({ value: 'planned', label: 'Planned' });
  });

  it('merges custom_fields into the existing ones instead of replacing them', async () => {
    const id = fake.addDevice({ name: 'merge-me', customFields: { class: 'worker', install_disk: '/dev/sda' } });
    const { body } = await api('PATCH', `dcim/devices/${id}/`, { custom_fields: { desired_action: 'provision' } });
    expect(body.custom_fields).toMatchObject({ class: 'worker', install_disk: '/dev/sda', desired_action: 'provision' });
    const cleared = await api('PATCH', `dcim/devices/${id}/`, { custom_fields: { install_disk: null } });
    expect(cleared.body.custom_fields).toMatchObject({ class: 'worker', install_disk: null, desired_action: 'provision' });
  });

  it('answers 400 with NetBox bodies for an unknown custom field, a bad select choice, a bad status', async () => {
    const id = fake.addDevice({ name: 'refuse-me' });
    expect(await api('PATCH', `dcim/devices/${id}/`, { custom_fields: { bogus: 'x' } })).toEqual({
      status: 400,
      body: { custom_fields: { bogus: "Custom field 'bogus' does not exist for this object type." } },
    });
    expect(await api('PATCH', `dcim/devices/${id}/`, { custom_fields: { desired_action: 'reinstall' } })).toEqual({
      status: 400,
      body: { __all__: ["Invalid value for custom field 'desired_action': Invalid choice (reinstall) for choice set Fleet desired actions."] },
    });
    expect(await api('PATCH', `dcim/devices/${id}/`, { custom_fields: { attested_secure_boot: 'yes' } })).toEqual({
      status: 400,
      body: { __all__: ["Invalid value for custom field 'attested_secure_boot': Value must be true or false."] },
    });
    expect(await api('PATCH', `dcim/devices/${id}/`, { status: 'broken' })).toEqual({
      status: 400,
      body: { status: ['broken is not a valid choice.'] },
    });
    // Nothing was applied by the refused requests.
    const { body } = await api('GET', `dcim/devices/${id}/`);
    expect(body.status.value).toBe('active');
    expect(body.custom_fields.desired_action).toBeNull();
  });
});

describe('errors', () => {
  it('a missing object answers 404 with the recorded body shape', async () => {
    const rec = recorded('pynetbox/dcim/inventory_item_404.json');
    const res = await api('GET', 'dcim/devices/99999/');
    expect(res.status).toBe(404);
    expect(shape(res.body)).toEqual(shape(rec));
    // DRF 3.15+ (NetBox 4.x) passes Django's Http404 message; the recorded 3.x body says "Not found.".
    expect(res.body.detail).toBe('No Device matches the given query.');
    expect(rec['detail']).toBe('Not found.');
  });

  it('auth failures are 403 with the detail strings of netbox/api/authentication.py', async () => {
    const fakeV1 = 'a'.repeat(40);
    const fakeV2 = 'nbt_AAAAAAAAAAAA.BBBBBBBBBBBB';
    expect(await api('GET', 'dcim/devices/', undefined, fakeV1)).toEqual({ status: 403, body: { detail: 'Invalid v1 token' } });
    expect(await api('GET', 'dcim/devices/', undefined, fakeV2)).toEqual({ status: 403, body: { detail: 'Invalid v2 token' } });
    const none = await fetch(`${fake.apiUrl}dcim/devices/`);
    expect([none.status, await none.json()]).toEqual([403, { detail: 'Authentication credentials were not provided.' }]);
    const noDot = await fetch(`${fake.apiUrl}dcim/devices/`, { headers: { Authorization: 'Bearer nbt_nodothere' } });
    expect(((await noDot.json()) as { detail: string }).detail).toBe(
      "Invalid authorization header: Could not parse key from v2 token. Did you mean to use 'Token' instead of 'Bearer'?",
    );
    const readOnly = fake.addToken('auditor', { version: 2, writeEnabled: false });
    expect((await api('GET', 'dcim/devices/1/', undefined, readOnly)).status).toBe(200);
    expect(await api('PATCH', 'dcim/devices/1/', { status: 'planned' }, readOnly)).toEqual({
      status: 403,
      body: { detail: 'You do not have permission to perform this action.' },
    });
    const disabled = fake.addToken('fleet', { version: 1, enabled: false });
    expect(await api('GET', 'dcim/devices/', undefined, disabled)).toEqual({ status: 403, body: { detail: 'Token disabled' } });
  });

  it('the changelog is read-only', async () => {
    expect(await api('POST', 'core/object-changes/', {})).toEqual({ status: 405, body: { detail: 'Method "POST" not allowed.' } });
  });
});

describe('tokens', () => {
  it('a v2 provisioning answer has the recorded v2 shape, and nbt_<key>.<token> authenticates', async () => {
    const rec = recorded('pynetbox/api/token_provision_v2.json');
    const res = await api('POST', 'users/tokens/provision/', { username: 'fleet', password: 'fleet-password' }, '');
    expect(res.status).toBe(201);
    const got = shape(res.body);
    for (const [k, t] of Object.entries(shape(rec))) expect([k, got[k]]).toEqual([k, t]);
    expect(res.body.version).toBe(2);
    const token = tokenFromProvisionResponse(res.body);
    expect(parseToken(token).version).toBe(2);
    expect(parseToken(token).header).toBe(`Bearer nbt_${res.body.key}.${res.body.token}`);
    expect((await api('GET', 'status/', undefined, token)).body['netbox-version']).toMatch(/^4\.6\./);
    // The recorded answer builds a well-formed v2 token too.
    expect(parseToken(tokenFromProvisionResponse(rec)).version).toBe(2);
  });

  it("a v1 provisioning answer has NetBox 4.5's v1 shape (key null, the token in `token`), and it authenticates as Token", async () => {
    // The 4.6 docs' example (netbox-docs/token-provision-response-v1.json) is a pre-4.5 answer, with the
    // token in `key`; the real NetBox 4.5.10 answers key null and the 40 letters and digits in `token`.
    const rec = recorded<Record<string, unknown> & { body: Record<string, unknown> }>('netbox-4.5-recorded/token-v1-format.json').body;
    const res = await api('POST', 'users/tokens/provision/', { username: 'fleet', password: 'fleet-password', version: 1 }, '');
    expect(shape(res.body)).toEqual(shape(rec));
    expect(shape(res.body.user)).toEqual(shape(rec['user']));
    expect(res.body.key).toBeNull();
    const token = tokenFromProvisionResponse(res.body);
    expect(token).toBe(res.body.token);
    expect(token).toMatch(/^[A-Za-z0-9]{40}$/);
    expect(res.body.display).toBe(`${'*'.repeat(34)}${token.slice(-6)}`);
    expect((await api('GET', 'status/', undefined, token)).status).toBe(200);
    const docs = recorded('netbox-docs/token-provision-response-v1.json');
    expect(tokenFromProvisionResponse(docs)).toBe(docs['key']);
    expect(tokenFromProvisionResponse(recorded('pynetbox/api/token_provision_v1_legacy.json'))).toMatch(/^\d{40}$/);
    expect(await api('POST', 'users/tokens/provision/', { username: 'fleet', password: 'wrong' }, '')).toEqual({
      status: 403,
      body: { detail: 'Invalid username/password' },
    });
  });
});

describe('interfaces, MACs, cables, journal, changelog', () => {
  it('an interface cabled to a switch port shows its peer, its cable and its MACs', async () => {
    const node = fake.addDevice({ name: 'cabled-node', serial: 'CAB1' });
    const nic = fake.addInterface({ deviceId: node, name: 'eno1', mac: '52:54:00:12:34:56' });
    const { cableId, switchPortId } = fake.cableToSwitchPort(nic, { switchName: 'leaf-1', port: 'Ethernet1/7' });
    const { body: iface } = await api('GET', `dcim/interfaces/${nic}/`);
    expect(iface.cable).toMatchObject({ id: cableId });
    expect(Object.keys(iface.cable).sort()).toEqual(['description', 'display', 'id', 'label', 'url']);
    expect(iface.link_peers_type).toBe('dcim.interface');
    expect(iface.link_peers).toHaveLength(1);
    expect(iface.link_peers[0]).toMatchObject({ id: switchPortId, name: 'Ethernet1/7', device: { name: 'leaf-1' } });
    expect(Object.keys(iface.link_peers[0]).sort()).toEqual(['_occupied', 'cable', 'description', 'device', 'display', 'id', 'name', 'url']);
    expect(iface.primary_mac_address).toMatchObject({ mac_address: '52:54:00:12:34:56'.toUpperCase() });
    expect(iface.mac_addresses).toHaveLength(1);
    expect(iface.mac_address).toBe('52:54:00:12:34:56'.toUpperCase());

    const { body: cable } = await api('GET', `dcim/cables/${cableId}/`);
    expect(cable.status).toEqual({ value: 'connected', label: 'Connected' });
    expect(cable.a_terminations[0]).toMatchObject({ object_type: 'dcim.interface', object_id: switchPortId });
    expect(cable.b_terminations[0]).toMatchObject({ object_type: 'dcim.interface', object_id: nic });

    const { body: uncabled } = await api('GET', `dcim/interfaces/?device_id=${node}&cabled=false`);
    expect(uncabled.count).toBe(0);
    expect((await api('GET', 'dcim/interfaces/?device_id=99999')).body).toEqual({
      device_id: ['Select a valid choice. 99999 is not one of the available choices.'],
    });
  });

  it('POSTed journal entries and MACs are recorded in the changelog by the token user', async () => {
    const node = fake.addDevice({ name: 'journal-node' });
    const nic = fake.addInterface({ deviceId: node, name: 'eno2' });
    const entry = await api('POST', 'extras/journal-entries/', {
      assigned_object_type: 'dcim.device',
      assigned_object_id: node,
      kind: 'warning',
      comments: 'attest: FAILED ek-hash-mismatch',
    });
    expect(entry.status).toBe(201);
    expect(entry.body).toMatchObject({ kind: { value: 'warning', label: 'Warning' }, created_by: fake.fleetUser.id });
    expect(entry.body.created).toMatch(NETBOX_DATETIME);
    expect(
      (await api('POST', 'extras/journal-entries/', { assigned_object_type: 'dcim.device', assigned_object_id: node, kind: 'note', comments: 'x' })).body,
    ).toEqual({
      kind: ['note is not a valid choice.'],
    });
    const mac = await api('POST', 'dcim/mac-addresses/', { mac_address: 'aa-bb-cc-00-11-22', assigned_object_type: 'dcim.interface', assigned_object_id: nic });
    expect(mac.status).toBe(201);
    expect(mac.body.mac_address).toBe('AA:BB:CC:00:11:22');
    expect(mac.body.assigned_object).toMatchObject({ id: nic, name: 'eno2' });
    const setPrimary = await api('PATCH', `dcim/interfaces/${nic}/`, { primary_mac_address: mac.body.id });
    expect(setPrimary.body.primary_mac_address).toMatchObject({ id: mac.body.id });

    const { body: changes } = await api('GET', `core/object-changes/?user_name=fleet&limit=1000`);
    const mine = (changes.results as Array<Record<string, any>>).filter((c) =>
      [`extras.journalentry:${entry.body.id}`, `dcim.macaddress:${mac.body.id}`, `dcim.interface:${nic}`].includes(
        `${c['changed_object_type']}:${c['changed_object_id']}`,
      ),
    );
    expect(mine.map((c) => c['action']['value']).sort()).toEqual(['create', 'create', 'update']);
    for (const c of mine) {
      expect(c['user']).toMatchObject({ username: 'fleet' });
      expect(c['time']).toMatch(NETBOX_DATETIME);
      expect(c['request_id']).toMatch(/^[0-9a-f-]{36}$/);
    }
    // Newest first by default (ObjectChange.Meta.ordering = ['-time']).
    const times = (changes.results as Array<{ time: string }>).map((c) => c.time);
    expect([...times].sort().reverse()).toEqual(times);
  });
});

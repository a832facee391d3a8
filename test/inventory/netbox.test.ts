import { afterEach, describe, expect, it } from 'vitest';
import { inventoryContract, NODES } from './contract.js';
import { netboxFixture, TERRAFORM, type NetBoxFixture } from './netbox-fixture.js';

inventoryContract('NetBox', () => netboxFixture());

describe('the NetBox inventory beyond the contract', () => {
  let f: NetBoxFixture;
  afterEach(() => f.close());
  const A = 'a'.repeat(64);

  it('a binding another user edited is unauthored, naming the user', async () => {
    f = await netboxFixture();
    await f.declare(NODES);
    f.fake.addUser('alice');
    f.fake.setCustomFieldAs('alice', f.ids.get('node-1')!, { approved_ek_hash: 'c'.repeat(64) }, 'quick fix');
    const d = (await f.inventory.deviceBySerial('SN1'))!;
    expect(await f.inventory.bindingAuthorship(d)).toEqual({ authored: false, reason: `approved_ek_hash was last written by alice, not ${TERRAFORM}` });
  });

  it('another user writing other fields leaves the binding authored', async () => {
    f = await netboxFixture();
    await f.declare(NODES);
    f.fake.addUser('alice');
    f.fake.setCustomFieldAs('alice', f.ids.get('node-1')!, { install_disk: '/dev/sdb' });
    expect(await f.inventory.bindingAuthorship((await f.inventory.deviceBySerial('SN1'))!)).toEqual({ authored: true });
  });

  it('a binding whose changelog record is lost is unauthored', async () => {
    f = await netboxFixture();
    await f.declare(NODES);
    f.fake.dropChangelog('dcim.device', f.ids.get('node-1')!);
    const a = await f.inventory.bindingAuthorship((await f.inventory.deviceBySerial('SN1'))!);
    expect(a).toEqual({ authored: false, reason: "NetBox's changelog holds no record of approved_ek_hash being set to its value" });
  });

  it('with no bindingAuthor configured, no binding is trusted', async () => {
    f = await netboxFixture({});
    await f.declare(NODES);
    expect((await f.inventory.bindingAuthorship((await f.inventory.deviceBySerial('SN1'))!)).authored).toBe(false);
  });

  it('matches the serial exactly, though NetBox matches it case-insensitively, and refuses a serial two devices hold', async () => {
    f = await netboxFixture();
    await f.declare(NODES);
    expect(await f.inventory.deviceBySerial('sn1')).toBeNull();
    f.fake.addDevice({ name: 'twin', serial: 'SN1', status: 'planned' });
    await expect(f.inventory.deviceBySerial('SN1')).rejects.toMatchObject({
      code: 'inventory-ambiguous',
      message: /2 devices with the serial SN1 \(node-1, twin\)/,
    });
  });

  it("records the attested MAC as the boot interface's primary MAC object", async () => {
    f = await netboxFixture();
    await f.declare(NODES);
    const d = (await f.inventory.deviceBySerial('SN1'))!;
    await f.inventory.recordAttested(d, { at: 't', mac: '52:54:00:12:34:56', bootId: 'b', eks: { rsa2048: A }, secureBoot: true, switchPort: 'Port 5' });
    const { NetBoxClient } = await import('../../verifier/netbox/client.js');
    const nb = new NetBoxClient({ url: f.fake.url, token: f.fake.token });
    const [iface] = await nb.list<{ primary_mac_address: { mac_address: string } | null }>('dcim/interfaces', { device_id: Number(d.id) });
    expect(iface?.primary_mac_address?.mac_address.toLowerCase()).toBe('52:54:00:12:34:56');
    expect((await f.inventory.deviceBySerial('SN1'))!.mac).toBe('52:54:00:12:34:56');
  });

  it('leaves a MAC another device holds where it is, and says so in the journal', async () => {
    f = await netboxFixture();
    await f.declare(NODES);
    const other = f.fake.addDevice({ name: 'other', serial: 'SN9' });
    f.fake.addInterface({ deviceId: other, name: 'eth0', mac: '52:54:00:12:34:56' });
    const d = (await f.inventory.deviceBySerial('SN1'))!;
    await f.inventory.recordAttested(d, { at: 't', mac: '52:54:00:12:34:56', bootId: 'b', eks: {}, secureBoot: null, switchPort: null });
    const j = await f.inventory.journalOf(d);
    expect(j.map((e) => e.message)).toEqual([expect.stringMatching(/^the attested MAC 52:54:00:12:34:56 is assigned to .* in NetBox; fleet left it there$/)]);
    expect((await f.inventory.deviceBySerial('SN1'))!.attested?.mac).toBe('52:54:00:12:34:56');
  });

  it('passes over a MAC object that holds no address: it is not the attested MAC', async () => {
    f = await netboxFixture();
    await f.declare(NODES);
    const { NetBoxClient } = await import('../../verifier/netbox/client.js');
    const { NetBoxInventory } = await import('../../verifier/inventory/netbox/netbox-inventory.js');
    const odd = {
      count: 1,
      next: null,
      previous: null,
      results: [{ id: 99, url: 'u', display: '?', mac_address: null, assigned_object_type: null, assigned_object_id: null, assigned_object: null }],
    };
    const fetchImpl: typeof fetch = async (input, init) =>
      String(input).includes('/dcim/mac-addresses/?')
        ? new Response(JSON.stringify(odd), { status: 200, headers: { 'content-type': 'application/json' } })
        : fetch(input, init);
    const inv = new NetBoxInventory(new NetBoxClient({ url: f.fake.url, token: f.fake.token, fetchImpl }), { bindingAuthor: TERRAFORM });
    const d = (await inv.deviceBySerial('SN1'))!;
    await inv.recordAttested(d, { at: 't', mac: '52:54:00:12:34:56', bootId: 'b', eks: {}, secureBoot: null, switchPort: null });
    expect((await f.inventory.deviceBySerial('SN1'))!.mac).toBe('52:54:00:12:34:56');
  });

  it('a refused token is a typed error, never a verdict', async () => {
    f = await netboxFixture();
    await f.declare(NODES);
    const { NetBoxClient } = await import('../../verifier/netbox/client.js');
    const { NetBoxInventory } = await import('../../verifier/inventory/netbox/netbox-inventory.js');
    const bad = new NetBoxInventory(new NetBoxClient({ url: f.fake.url, token: '0'.repeat(40), retries: 0 }), { bindingAuthor: TERRAFORM });
    await expect(bad.deviceBySerial('SN1')).rejects.toMatchObject({ code: 'netbox-forbidden' });
  });
});

/**
 * The client and its readers take NetBox answers of older releases (pynetbox's 2.x/3.x fixtures)
 * without crashing: unknown and legacy fields pass through, and the readers find what they can.
 */
import { describe, expect, it } from 'vitest';
import { NetBoxClient } from '../../verifier/netbox/client.js';
import { choiceValue, customField, interfacePeers, interfacePrimaryMac, relatedId } from '../../verifier/netbox/shapes.js';
import { recorded } from './recorded.js';

const TOKEN = '0123456789abcdef0123456789abcdef01234567';

/** A NetBox that answers every request with the recorded body (list pages split when asked). */
function serving(routes: Record<string, unknown>): { client: NetBoxClient; seen: string[] } {
  const seen: string[] = [];
  const fetchImpl: typeof fetch = async (input) => {
    const url = new URL(String(input));
    seen.push(url.pathname + url.search);
    const body = routes[url.pathname + url.search] ?? routes[url.pathname];
    if (body === undefined) return new Response(JSON.stringify({ detail: 'Not found.' }), { status: 404 });
    return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  return { client: new NetBoxClient({ url: 'https://netbox.example/api/', token: TOKEN, fetchImpl }), seen };
}

describe('old NetBox shapes', () => {
  it('lists the recorded 3.x device page, keeping every field as it came', async () => {
    const page = recorded<{ count: number; results: Array<Record<string, unknown>> }>('pynetbox/dcim/devices.json');
    const { client } = serving({ '/api/dcim/devices/': page });
    const devices = await client.list('dcim/devices');
    expect(devices).toHaveLength(page.count);
    expect(devices).toEqual(page.results);
    // status {value: true, label: "Active"} (2.x), display_name instead of display: readable, not fatal.
    expect(devices.map((d) => choiceValue(d['status']))).toContain('true');
    expect(customField(devices[0], 'desired_action')).toBeNull();
    expect(relatedId(devices[0]?.['primary_ip4'])).toBe(5);
  });

  it('follows a multi-page listing made of recorded objects', async () => {
    const page = recorded<{ results: Array<Record<string, unknown>> }>('pynetbox/ipam/ip_addresses.json');
    const [a, b] = [page.results.slice(0, 10), page.results.slice(10)];
    const { client, seen } = serving({
      '/api/dcim/devices/?limit=1000': {
        count: page.results.length,
        next: 'http://old-netbox/api/dcim/devices/?limit=1000&offset=10',
        previous: null,
        results: a,
      },
      '/api/dcim/devices/?limit=1000&offset=10': {
        count: page.results.length,
        next: null,
        previous: 'http://old-netbox/api/dcim/devices/?limit=1000',
        results: b,
      },
    });
    expect(await client.list('dcim/devices')).toEqual(page.results);
    expect(seen).toEqual(['/api/dcim/devices/?limit=1000', '/api/dcim/devices/?limit=1000&offset=10']);
  });

  it('reads a 3.x interface (connected_endpoints, cable object, form_factor, no MAC objects)', async () => {
    const iface = recorded('pynetbox/dcim/interface.json');
    const { client } = serving({ '/api/dcim/interfaces/1/': iface });
    const got = await client.get('dcim/interfaces', 1);
    expect(got).toEqual(iface);
    expect(interfacePrimaryMac(got)).toBeNull(); // mac_address: null, no primary_mac_address
    expect(interfacePeers(got)).toEqual([{ id: 1, device: null, name: 'tst-endpoint' }]);
    expect(relatedId(got['cable'])).toBe(1);
    expect(choiceValue(got['mode'])).toBe('tagged');
  });

  it('reads a 2.x cable (termination_a/b) and a cable trace with bare cable ids', async () => {
    const cable = recorded('pynetbox/dcim/cable.json');
    const { client } = serving({ '/api/dcim/cables/1/': cable });
    const got = await client.get('dcim/cables', 1);
    expect(got['termination_a_type']).toBe('dcim.consoleport');
    expect(choiceValue(got['status'])).toBe('true');
    const trace = recorded<Array<Array<Record<string, unknown>>>>('pynetbox/dcim/interface_trace.json');
    expect(trace.flat().map((hop) => relatedId(hop['cable']) ?? hop['id'])).toContain(9911);
  });

  it('reads a device, an IP with a numeric family, a legacy VLAN status, an unknown model', async () => {
    const { client } = serving({
      '/api/dcim/devices/1/': recorded('pynetbox/dcim/device.json'),
      '/api/dcim/mac-addresses/1/': recorded('pynetbox/users/unknown_model.json'),
    });
    const device = await client.get('dcim/devices', 1);
    expect(device['config_context']).toEqual({ test_key: 'test_val' });
    expect(choiceValue(device['face'])).toBe('0');
    expect(await client.get('dcim/mac-addresses', 1)).toEqual({ id: 1, display: 'Unknown object' });
    expect(choiceValue(recorded('netbox-docs/vlan-1048-legacy-shape.json')['status'])).toBe('1');
    const ip = recorded('netbox-docs/ip-address-2954-legacy-shape.json');
    expect(relatedId(ip['assigned_object'])).toBe(114771);
    expect(choiceValue(ip['family'])).toBe('4');
  });

  it('reads the 4.2+ interface shape too', () => {
    const peerDevice = { id: 9, url: 'u', display: 'leaf-1', name: 'leaf-1' };
    const iface = {
      primary_mac_address: { id: 3, url: 'u', display: 'AA:BB:CC:DD:EE:FF', mac_address: 'AA:BB:CC:DD:EE:FF' },
      mac_address: 'AA:BB:CC:DD:EE:FF',
      link_peers: [{ id: 7, url: 'u', display: 'Ethernet1', device: peerDevice, name: 'Ethernet1' }],
    };
    expect(interfacePrimaryMac(iface)).toBe('AA:BB:CC:DD:EE:FF');
    expect(interfacePeers(iface)).toEqual([{ id: 7, device: 'leaf-1', name: 'Ethernet1' }]);
    expect(interfacePrimaryMac(null)).toBeNull();
    expect(interfacePeers('garbage')).toEqual([]);
  });

  it('refuses, as a typed error, an answer that is not a listing or not an object', async () => {
    const { client } = serving({ '/api/dcim/devices/': [{ id: 1 }], '/api/dcim/devices/1/': ['not', 'an', 'object'] });
    await expect(client.list('dcim/devices')).rejects.toMatchObject({ code: 'netbox-error' });
    await expect(client.get('dcim/devices', 1)).rejects.toMatchObject({ code: 'netbox-error' });
  });

  it('refuses, as a typed error, a listing whose results hold something that is not an object', async () => {
    for (const item of [null, 7, 'device']) {
      const { client } = serving({ '/api/dcim/devices/': { count: 2, next: null, previous: null, results: [{ id: 1 }, item] } });
      await expect(client.list('dcim/devices')).rejects.toMatchObject({ code: 'netbox-error', message: /an object that has no numeric id/ });
    }
  });
});

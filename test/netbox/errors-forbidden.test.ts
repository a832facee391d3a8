/**
 * The 403 hint names the permission the token's user lacks, from the method and the endpoint, and
 * never holds the token. NetBox's answers are the recorded ones of NetBox 4.5.10.
 */
import { describe, expect, it } from 'vitest';
import { NetBoxClient } from '../../verifier/netbox/client.js';
import { forbiddenMessage, NETBOX_NO_PERMISSION, NetBoxError, requiredPermission } from '../../verifier/netbox/errors.js';
import { FakeNetBox } from './fake-netbox.js';
import { recorded } from './recorded.js';

const detailOf = (file: string): string => recorded<{ body: { detail: string } }>(`netbox-4.5-recorded/${file}`).body.detail;

describe('requiredPermission', () => {
  it('maps the method to view/add/change/delete and the endpoint to its object type', () => {
    expect(requiredPermission('PATCH', 'dcim/devices/3/')).toEqual({ action: 'change', objectType: 'dcim.device' });
    expect(requiredPermission('PUT', 'dcim/devices/3/')).toEqual({ action: 'change', objectType: 'dcim.device' });
    expect(requiredPermission('GET', 'dcim/interfaces/?device_id=4&limit=1000')).toEqual({ action: 'view', objectType: 'dcim.interface' });
    expect(requiredPermission('POST', 'dcim/mac-addresses/')).toEqual({ action: 'add', objectType: 'dcim.macaddress' });
    expect(requiredPermission('POST', 'extras/journal-entries/')).toEqual({ action: 'add', objectType: 'extras.journalentry' });
    expect(requiredPermission('GET', 'core/object-changes/?limit=1')).toEqual({ action: 'view', objectType: 'core.objectchange' });
    expect(requiredPermission('DELETE', 'ipam/ip-addresses/7/')).toEqual({ action: 'delete', objectType: 'ipam.ipaddress' });
    expect(requiredPermission('get', '/api/dcim/cables/')).toEqual({ action: 'view', objectType: 'dcim.cable' });
    expect(requiredPermission('GET', 'status/')).toBeUndefined();
    expect(requiredPermission('TRACE', 'dcim/devices/')).toBeUndefined();
  });
});

describe('forbiddenMessage', () => {
  it('names the missing permission when NetBox says the user may not (device-delete-no-permission.json, …)', () => {
    expect(detailOf('device-delete-no-permission.json')).toBe(NETBOX_NO_PERMISSION);
    expect(forbiddenMessage('PATCH', 'dcim/devices/3/', 403, NETBOX_NO_PERMISSION)).toBe(
      "NetBox refused PATCH dcim/devices/3/ (403): the token's user needs the change permission on dcim.device, or the token is " +
        `read-only (write_enabled false) (NetBox said: ${NETBOX_NO_PERMISSION})`,
    );
    expect(forbiddenMessage('DELETE', 'dcim/devices/5/', 403, detailOf('device-delete-no-permission.json'))).toMatch(
      /^NetBox refused DELETE dcim\/devices\/5\/ \(403\): the token's user needs the delete permission on dcim\.device/,
    );
    expect(forbiddenMessage('POST', 'core/object-changes/', 403, detailOf('object-changes-post-no-permission.json'))).toMatch(
      /needs the add permission on core\.objectchange/,
    );
    // A read needs no write_enabled: no read-only hint.
    expect(forbiddenMessage('GET', 'core/object-changes/?limit=1', 403, detailOf('object-changes-no-view-permission.json'))).toBe(
      `NetBox refused GET core/object-changes/?limit=1 (403): the token's user needs the view permission on core.objectchange (NetBox said: ${NETBOX_NO_PERMISSION})`,
    );
    expect(forbiddenMessage('POST', 'extras/journal-entries/', 403, detailOf('auth-read-only-token-post.json'))).toMatch(
      /needs the add permission on extras\.journalentry, or the token is read-only/,
    );
    expect(forbiddenMessage('GET', 'dcim/front-ports/', 403, NETBOX_NO_PERMISSION)).toBe(
      `NetBox refused GET dcim/front-ports/ (403: ${NETBOX_NO_PERMISSION}): the token's user lacks a permission`,
    );
  });

  it('says the token itself was refused when NetBox says so (auth-*.json)', () => {
    for (const file of ['auth-bad-v1-token.json', 'auth-disabled-token.json', 'auth-expired-token.json', 'auth-none.json']) {
      const m = forbiddenMessage('GET', 'dcim/devices/?limit=1000', 403, detailOf(file));
      expect(m).toContain(detailOf(file));
      expect(m).toMatch(/check that the token exists, is enabled, has not expired/);
      expect(m).not.toMatch(/permission on/);
    }
  });

  it('never holds the token', () => {
    const token = 'nbt_FleetKeyEx01.FleetV2SecretPlaceholderXYZ0000000000001';
    for (const said of [NETBOX_NO_PERMISSION, 'Invalid v2 token', '[redacted]']) {
      for (const [method, path] of [
        ['PATCH', 'dcim/devices/3/'],
        ['GET', 'status/'],
      ] as const) {
        const m = forbiddenMessage(method, path, 403, said);
        expect(m).not.toContain(token);
        expect(m).not.toContain('FleetV2Secret');
      }
    }
  });
});

describe('the client says which permission is missing', () => {
  it('a PATCH by a user who may only view devices: the error names the change permission on dcim.device, and holds no token', async () => {
    const fake = await FakeNetBox.start();
    try {
      const id = fake.addDevice({ name: 'node-1', serial: 'SN1', status: 'planned' });
      const token = fake.addToken('viewer');
      fake.setPermissions('viewer', { view: ['dcim.device'] });
      const client = new NetBoxClient({ url: fake.url, token, retries: 0 });
      const err = (await client.patch('dcim/devices', id, { status: 'active' }).catch((e: unknown) => e)) as NetBoxError;
      expect(err).toBeInstanceOf(NetBoxError);
      expect(err.message).toMatch(
        /^NetBox refused PATCH dcim\/devices\/\d+\/ \(403\): the token's user needs the change permission on dcim\.device, or the token is read-only/,
      );
      expect(err.message).not.toContain(token);
      expect((await client.get<{ status: { value: string } }>('dcim/devices', id)).status.value).toBe('planned');
    } finally {
      await fake.close();
    }
  });
});

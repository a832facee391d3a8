import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Binding, Device } from '../../verifier/inventory/device.js';
import type { Inventory } from '../../verifier/inventory/inventory.js';

/** One node declared the same way in every backend (the lab's nodes file ↔ a NetBox device). */
export interface DeclaredNode {
  hostname: string;
  serial: string;
  className: string;
  switchPort?: string;
  address?: string;
  bmcType?: string;
  disk?: string;
  diskSerial?: string;
  binding?: Binding;
}

export interface InventoryFixture {
  inventory: Inventory;
  declare(nodes: DeclaredNode[]): Promise<void>;
  close(): Promise<void>;
}

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

export const NODES: DeclaredNode[] = [
  {
    hostname: 'node-1',
    serial: 'SN1',
    className: 'worker',
    switchPort: 'Port 5',
    address: '10.0.1.11/24',
    disk: '/dev/nvme0n1',
    diskSerial: 'S4EV1',
    binding: { rsa2048: A, eccp256: B },
  },
  { hostname: 'cp-1', serial: 'SN2', className: 'controlplane', switchPort: 'Port 6', address: '10.0.1.12/24', disk: '/dev/sda', diskSerial: 'S4EV2' },
  {
    hostname: 'edge-1',
    serial: 'SN3',
    className: 'api-edge',
    switchPort: 'Port 7',
    address: '10.0.1.13/24',
    bmcType: 'amt',
    disk: '/dev/sda',
    diskSerial: 'S4EV3',
  },
];

/**
 * The behaviour every inventory backend must share: what fleet reads of a declared device, and
 * that what it writes (attested facts, verdicts, journal, desired_action) reads back the same.
 */
export function inventoryContract(backend: string, make: () => Promise<InventoryFixture>): void {
  describe(`the ${backend} inventory`, () => {
    let f: InventoryFixture;
    let inv: Inventory;
    beforeEach(async () => {
      f = await make();
      await f.declare(NODES);
      inv = f.inventory;
    });
    afterEach(() => f.close());

    const get = async (serial: string): Promise<Device> => {
      const d = await inv.deviceBySerial(serial);
      expect(d, serial).not.toBeNull();
      return d!;
    };

    it('reads a declared device by serial and by name, every field the same', async () => {
      const d = await get('SN1');
      expect(d).toMatchObject({
        hostname: 'node-1',
        serial: 'SN1',
        status: 'planned',
        className: 'worker',
        controlPlane: false,
        address: '10.0.1.11/24',
        switchPort: 'Port 5',
        installDisk: '/dev/nvme0n1',
        installDiskSerial: 'S4EV1',
        binding: { rsa2048: A, eccp256: B },
      });
      expect(d.desiredAction).toBeUndefined();
      expect(d.mac).toBeUndefined();
      expect(d.verdict).toBeUndefined();
      expect((await inv.deviceByName('node-1'))?.serial).toBe('SN1');
    });

    it('an unknown serial or name is null', async () => {
      expect(await inv.deviceBySerial('NOPE')).toBeNull();
      expect(await inv.deviceByName('nope')).toBeNull();
    });

    it('a control plane is known by its class, and a device without a binding has an empty one', async () => {
      const cp = await get('SN2');
      expect(cp.controlPlane).toBe(true);
      expect(cp.binding).toEqual({});
    });

    it("a control plane is known by its class's definition (control_plane: true), whatever the class is named", async () => {
      expect(await get('SN3')).toMatchObject({ className: 'api-edge', controlPlane: true });
      expect((await get('SN1')).controlPlane).toBe(false);
    });

    it('the BMC type reads back, and is absent where none is declared', async () => {
      expect((await get('SN3')).bmcType).toBe('amt');
      expect((await get('SN1')).bmcType).toBeUndefined();
    });

    it('attested facts and the MAC read back', async () => {
      const facts = {
        at: '2026-11-30T06:00:00.000Z',
        mac: '52:54:00:12:34:56',
        bootId: '0f2b9c4e-5d6a-4b7c-8d9e-0a1b2c3d4e5f',
        eks: { rsa2048: A, eccp256: B },
        secureBoot: true,
        switchPort: 'Port 5',
      };
      await inv.recordAttested(await get('SN1'), facts);
      const d = await get('SN1');
      expect(d.mac).toBe('52:54:00:12:34:56');
      expect(d.verdict).toBe('attested');
      expect(d.attested).toEqual(facts);
    });

    it('a verdict alone changes nothing else', async () => {
      await inv.recordAttested(await get('SN1'), { at: 't', mac: '52:54:00:12:34:56', bootId: 'b', eks: { rsa2048: A }, secureBoot: null, switchPort: null });
      await inv.recordVerdict(await get('SN1'), 'eventlog-mismatch');
      const d = await get('SN1');
      expect(d.verdict).toBe('eventlog-mismatch');
      expect(d.mac).toBe('52:54:00:12:34:56');
    });

    it('journal entries read back in order, with their kinds', async () => {
      const d = await get('SN1');
      await inv.journal(d, 'success', 'node-1 attested from HookOS');
      await inv.journal(d, 'warning', 'node-1 attested on port Port 7, expected Port 5');
      const j = await inv.journalOf(d);
      expect(j.map((e) => [e.kind, e.message])).toEqual([
        ['success', 'node-1 attested from HookOS'],
        ['warning', 'node-1 attested on port Port 7, expected Port 5'],
      ]);
      expect(await inv.journalOf(await get('SN2'))).toEqual([]);
    });

    it('desired_action is set and cleared', async () => {
      await inv.setDesiredAction(await get('SN1'), 'provision');
      expect((await get('SN1')).desiredAction).toBe('provision');
      await inv.setDesiredAction(await get('SN1'), null);
      expect((await get('SN1')).desiredAction).toBeUndefined();
    });

    it('lists every managed device, each as it reads alone', async () => {
      const all = await inv.listDevices();
      expect(all.map((d) => d.hostname).sort()).toEqual(['cp-1', 'edge-1', 'node-1']);
      for (const d of all) expect(d).toEqual(await get(d.serial));
    });

    it('knows the classes devices name', async () => {
      const classes = await inv.classes();
      expect(classes.get('worker')).toMatchObject({ payload: 'talos', installerImage: expect.any(String), controlPlane: false });
      expect(classes.get('controlplane')?.controlPlane).toBe(true);
    });

    it('a run records its name and clears desired_action in one step', async () => {
      await inv.setDesiredAction(await get('SN1'), 'provision');
      await inv.recordRun(await get('SN1'), 'provision-node-1-1764480000');
      const d = await get('SN1');
      expect(d.lastRun).toBe('provision-node-1-1764480000');
      expect(d.desiredAction).toBeUndefined();
    });

    it('the status is set and reads back', async () => {
      await inv.setStatus(await get('SN1'), 'decommissioning');
      expect((await get('SN1')).status).toBe('decommissioning');
    });

    it('a binding declared through the trusted path is authored', async () => {
      expect(await inv.bindingAuthorship(await get('SN1'))).toEqual({ authored: true });
    });
  });
}

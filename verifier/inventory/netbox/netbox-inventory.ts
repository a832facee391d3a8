import { INVENTORY_LINES } from '../lines.js';
import { FleetError } from '../../../shared/errors.js';
import { hostNameProblem } from '../../../shared/net/host-name.js';
import { printable } from '../../../shared/text/terminal.js';
import type { Verdict } from '../../../shared/wire/verdicts.js';
import type { NetBoxClient } from '../../netbox/client.js';
import {
  choiceValue,
  customField,
  interfacePeers,
  interfacePrimaryMac,
  relatedId,
  type NetBoxDevice,
  type NetBoxInterface,
  type NetBoxJournalEntry,
  type NetBoxMacAddress,
  type NetBoxObjectChange,
} from '../../netbox/shapes.js';
import {
  DESIRED_ACTIONS,
  DEVICE_STATUSES,
  JOURNAL_KINDS,
  type AttestedFacts,
  type Authorship,
  type DesiredAction,
  type Device,
  type DeviceStatus,
  type JournalEntry,
  type JournalKind,
} from '../device.js';
import type { NodeClass } from '../embedded/nodes-file.js';
import { deriveDevice } from '../derive.js';
import type { Inventory } from '../inventory.js';
import { bindingAuthorship } from './authorship.js';
import { CF } from './custom-fields.js';

export interface NetBoxInventoryOptions {
  /** The NetBox user whose writes of the binding are trusted (Terraform's). */
  bindingAuthor?: string;
  /** The classes devices name (NetBox holds only the name): payload and parameters. */
  classes?: Map<string, NodeClass>;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** A data interface (not management) whose cable ends on a named port. */
const isBootInterface = (i: NetBoxInterface) => i['mgmt_only'] !== true && interfacePeers(i).some((p) => p.name);

/**
 * The lab's inventory: NetBox 4.x. A device's declaration is its serial, status, primary IPv4, the
 * switch port its cable ends on, and the custom fields in custom-fields.ts; fleet writes back the
 * attested_* fields, the verdict, the boot NIC's MAC object, journal entries and desired_action.
 */
export class NetBoxInventory implements Inventory {
  constructor(
    private readonly nb: NetBoxClient,
    private readonly opts: NetBoxInventoryOptions = {},
  ) {}

  /** NetBox matches serial and name case-insensitively: the exact match is fleet's, and two are refused. */
  private async one(filter: 'serial' | 'name', value: string): Promise<NetBoxDevice | null> {
    const found = (await this.nb.list<NetBoxDevice>('dcim/devices', { [filter]: value })).filter((d) => (filter === 'serial' ? d.serial : d.name) === value);
    if (found.length > 1) {
      throw new FleetError(
        'inventory-ambiguous',
        `NetBox holds ${found.length} devices with the ${filter} ${value} (${found.map((d) => d.name).join(', ')}); fleet admits none of them`,
      );
    }
    return found[0] ?? null;
  }

  async deviceBySerial(serial: string): Promise<Device | null> {
    const d = await this.one('serial', serial);
    return d && this.toDevice(d, await this.bootInterface(d.id));
  }

  async deviceByName(hostname: string): Promise<Device | null> {
    const d = await this.one('name', hostname);
    return d && this.toDevice(d, await this.bootInterface(d.id));
  }

  /**
   * Every device with a class, in two sweeps (all devices, all cabled interfaces) joined here:
   * one request per device would not scale to a fleet.
   */
  async listDevices(): Promise<Device[]> {
    const [devices, ifaces] = await Promise.all([
      this.nb.list<NetBoxDevice>('dcim/devices', {}),
      this.nb.list<NetBoxInterface>('dcim/interfaces', { cabled: true }),
    ]);
    const boot = new Map<number, NetBoxInterface>();
    for (const i of ifaces) {
      const id = relatedId(i.device);
      if (id !== null && !boot.has(id) && isBootInterface(i)) boot.set(id, i);
    }
    return devices.filter((d) => str(customField(d, CF.class))).map((d) => this.toDevice(d, boot.get(d.id) ?? null));
  }

  async classes(): Promise<Map<string, NodeClass>> {
    return this.opts.classes ?? new Map();
  }

  /** The device's cabled data interface: the boot NIC, whose far end is its switch port. */
  private async bootInterface(deviceId: number): Promise<NetBoxInterface | null> {
    const ifaces = await this.nb.list<NetBoxInterface>('dcim/interfaces', { device_id: deviceId });
    return ifaces.find(isBootInterface) ?? null;
  }

  private toDevice(nb: NetBoxDevice, iface: NetBoxInterface | null): Device {
    const hostname = nb.name ?? `device-${nb.id}`;
    // The name becomes Kubernetes objects' and DNS's: one that is no host name is refused, not rewritten.
    const notHostName = hostNameProblem(hostname);
    if (notHostName)
      throw new FleetError(
        'inventory-invalid',
        `NetBox device ${nb.id}'s name ${printable(JSON.stringify(hostname))} is not a host name: ${notHostName}; fleet admits and provisions nothing until NetBox names it so`,
      );
    const cf = (k: string) => customField(nb, k);
    const status = choiceValue(nb.status) ?? '';
    const action = str(cf(CF.desiredAction));
    const rsa = str(cf(CF.approvedRsa));
    const ecc = str(cf(CF.approvedEcc));
    const at = str(cf(CF.attestedAt));
    const sb = cf(CF.attestedSecureBoot);
    const attestedEks: AttestedFacts['eks'] = {};
    if (str(cf(CF.attestedRsa))) attestedEks.rsa2048 = str(cf(CF.attestedRsa))!;
    if (str(cf(CF.attestedEcc))) attestedEks.eccp256 = str(cf(CF.attestedEcc))!;
    return deriveDevice(
      {
        id: String(nb.id),
        hostname,
        serial: nb.serial,
        // A status fleet does not know (staged, failed, inventory) is treated as offline: never provisioned by itself.
        status: (DEVICE_STATUSES as readonly string[]).includes(status) ? (status as DeviceStatus) : 'offline',
        binding: { ...(rsa ? { rsa2048: rsa } : {}), ...(ecc ? { eccp256: ecc } : {}) },
        className: str(cf(CF.class)),
        address: str(nb.primary_ip4?.address),
        switchPort: iface ? (interfacePeers(iface).find((p) => p.name)?.name ?? undefined) : undefined,
        bmcType: str(cf(CF.bmcType)),
        installDisk: str(cf(CF.installDisk)),
        installDiskSerial: str(cf(CF.installDiskSerial)),
        desiredAction: (DESIRED_ACTIONS as readonly string[]).includes(action ?? '') ? (action as DesiredAction) : undefined,
        lastRun: str(cf(CF.lastRun)),
        mac: (iface && interfacePrimaryMac(iface)?.toLowerCase()) || str(cf(CF.attestedMac)),
        verdict: str(cf(CF.verdict)) as Verdict | undefined,
        attested: at
          ? {
              at,
              mac: str(cf(CF.attestedMac)) ?? '',
              bootId: str(cf(CF.attestedBootId)) ?? '',
              eks: attestedEks,
              secureBoot: typeof sb === 'boolean' ? sb : null,
              switchPort: str(cf(CF.attestedSwitchPort)) ?? null,
            }
          : undefined,
      },
      this.opts.classes ?? new Map(),
    );
  }

  async bindingAuthorship(device: Device): Promise<Authorship> {
    const [nb, changes] = await Promise.all([
      this.nb.get<NetBoxDevice>('dcim/devices', Number(device.id)),
      this.nb.list<NetBoxObjectChange>('core/object-changes', { changed_object_type: 'dcim.device', changed_object_id: Number(device.id), ordering: '-time' }),
    ]);
    return bindingAuthorship(nb.custom_fields ?? {}, changes, this.opts.bindingAuthor);
  }

  private patchFields(device: Device, fields: Record<string, unknown>): Promise<unknown> {
    // NetBox merges custom_fields on PATCH: only these change.
    return this.nb.patch('dcim/devices', Number(device.id), { custom_fields: fields });
  }

  async recordAttested(device: Device, facts: AttestedFacts): Promise<void> {
    await this.patchFields(device, {
      [CF.verdict]: 'attested',
      [CF.attestedAt]: facts.at,
      [CF.attestedMac]: facts.mac,
      [CF.attestedBootId]: facts.bootId,
      [CF.attestedRsa]: facts.eks.rsa2048 ?? null,
      [CF.attestedEcc]: facts.eks.eccp256 ?? null,
      [CF.attestedSecureBoot]: facts.secureBoot,
      [CF.attestedSwitchPort]: facts.switchPort,
    });
    await this.recordMac(device, facts.mac);
  }

  /**
   * Makes the attested MAC the boot interface's primary MAC object (NetBox 4.2+). A MAC that NetBox
   * already assigns to another interface is left there, and the journal says so: moving it is a
   * person's decision.
   */
  private async recordMac(device: Device, mac: string): Promise<void> {
    const iface = await this.bootInterface(Number(device.id));
    if (!iface || interfacePrimaryMac(iface)?.toLowerCase() === mac) return;
    const existing = (await this.nb.list<NetBoxMacAddress>('dcim/mac-addresses', { mac_address: mac })).filter(
      (m) => typeof m.mac_address === 'string' && m.mac_address.toLowerCase() === mac,
    );
    const elsewhere = existing.find(
      (m) => !(m.assigned_object_type === 'dcim.interface' && m.assigned_object_id === iface.id) && m.assigned_object_id !== null,
    );
    if (elsewhere) {
      const said = INVENTORY_LINES.macElsewhere(mac, elsewhere.assigned_object?.display ?? 'another object');
      await this.journal(device, said.kind, said.message);
      return;
    }
    const own = existing.find((m) => m.assigned_object_id === iface.id);
    const macId =
      own?.id ??
      (await this.nb.post<NetBoxMacAddress>('dcim/mac-addresses', { mac_address: mac, assigned_object_type: 'dcim.interface', assigned_object_id: iface.id }))
        .id;
    await this.nb.patch('dcim/interfaces', iface.id, { primary_mac_address: macId });
  }

  async recordVerdict(device: Device, verdict: Verdict): Promise<void> {
    await this.patchFields(device, { [CF.verdict]: verdict });
  }

  async journal(device: Device, kind: JournalKind, message: string): Promise<void> {
    await this.nb.post('extras/journal-entries', { assigned_object_type: 'dcim.device', assigned_object_id: Number(device.id), kind, comments: message });
  }

  async journalOf(device: Device): Promise<JournalEntry[]> {
    const entries = await this.nb.list<NetBoxJournalEntry>('extras/journal-entries', {
      assigned_object_type: 'dcim.device',
      assigned_object_id: Number(device.id),
    });
    return entries
      .sort((a, b) => a.id - b.id)
      .map((e) => {
        const kind = choiceValue(e.kind) ?? 'info';
        return { at: e.created ?? '', kind: ((JOURNAL_KINDS as readonly string[]).includes(kind) ? kind : 'info') as JournalKind, message: e.comments };
      });
  }

  async setDesiredAction(device: Device, action: DesiredAction | null): Promise<void> {
    await this.patchFields(device, { [CF.desiredAction]: action });
  }

  async recordRun(device: Device, run: string): Promise<void> {
    await this.patchFields(device, { [CF.lastRun]: run, [CF.desiredAction]: null });
  }

  async setStatus(device: Device, status: DeviceStatus): Promise<void> {
    await this.nb.patch('dcim/devices', Number(device.id), { status });
  }

  async close(): Promise<void> {}
}

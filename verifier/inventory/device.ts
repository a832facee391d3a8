import type { EkKind } from '../../shared/wire/schemas.js';
import type { Verdict } from '../../shared/wire/verdicts.js';

/** NetBox's device statuses that fleet reads and writes. */
export const DEVICE_STATUSES = ['planned', 'active', 'decommissioning', 'offline'] as const;
export type DeviceStatus = (typeof DEVICE_STATUSES)[number];

export const DESIRED_ACTIONS = ['provision', 'retire'] as const;
export type DesiredAction = (typeof DESIRED_ACTIONS)[number];

/** The EK hashes a device's entry approves, from independent evidence. */
export type Binding = Partial<Record<EkKind, string>>;

/**
 * A device as fleet reads it from the inventory: the operator's declaration (from the nodes file
 * or NetBox) and what fleet wrote back. Absent optional fields are what the journal's `lacks`
 * lines name.
 */
export interface Device {
  /** The backend's key: the host name (embedded) or NetBox's device id. */
  id: string;
  hostname: string;
  serial: string;
  status: DeviceStatus;
  className?: string;
  /** Control planes are admitted but never provisioned without desired_action. */
  controlPlane: boolean;
  /** The static address, CIDR. */
  address?: string;
  /** The switch port the device is cabled to, as the switch names it in LLDP. */
  switchPort?: string;
  bmcType?: string;
  installDisk?: string;
  installDiskSerial?: string;
  binding: Binding;
  desiredAction?: DesiredAction;
  /** The MAC fleet recorded when the device last attested. */
  mac?: string;
  /** The last run fleet started for the device (its Workflow's name). */
  lastRun?: string;
  /** The latest verdict fleet wrote, and the facts of the latest attestation that passed. */
  verdict?: Verdict;
  attested?: AttestedFacts;
}

/** What an attestation proved, as it is written to the device. */
export interface AttestedFacts {
  at: string;
  mac: string;
  bootId: string;
  eks: Binding;
  secureBoot: boolean | null;
  /** The switch port LLDP named, or null when no frame arrived. */
  switchPort: string | null;
}

export const JOURNAL_KINDS = ['info', 'success', 'warning', 'danger'] as const;
export type JournalKind = (typeof JOURNAL_KINDS)[number];

export interface JournalEntry {
  at: string;
  kind: JournalKind;
  message: string;
}

/** Whether the binding is what the trusted writer wrote (NetBox's changelog; a file from git is). */
export interface Authorship {
  authored: boolean;
  /** Why not, in the journal's words. */
  reason?: string;
}

export type { Verdict };

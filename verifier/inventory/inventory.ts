import type { Verdict } from '../../shared/wire/verdicts.js';
import type { AttestedFacts, Authorship, Device, DesiredAction, DeviceStatus, JournalEntry, JournalKind } from './device.js';
import type { NodeClass } from './embedded/nodes-file.js';

/**
 * Where devices are declared and where fleet writes back what it proved: NetBox in the lab, or the
 * embedded backend (the lab's nodes file and SQLite) on a single machine. Both behave the same;
 * one test suite runs against both.
 */
export interface Inventory {
  /** The device whose serial this is; null when none, or when two claim it (the caller is told which). */
  deviceBySerial(serial: string): Promise<Device | null>;
  deviceByName(hostname: string): Promise<Device | null>;
  /** Every device fleet manages (those with a class), for a reconcile pass. */
  listDevices(): Promise<Device[]>;
  /** The classes devices name: each class's payload and its parameters. */
  classes(): Promise<Map<string, NodeClass>>;
  /** Whether the device's binding was written by the trusted author. */
  bindingAuthorship(device: Device): Promise<Authorship>;
  /** Attested: the MAC, the attested_* facts and the verdict. */
  recordAttested(device: Device, facts: AttestedFacts): Promise<void>;
  /** A verdict and nothing else. */
  recordVerdict(device: Device, verdict: Verdict): Promise<void>;
  journal(device: Device, kind: JournalKind, message: string): Promise<void>;
  journalOf(device: Device): Promise<JournalEntry[]>;
  setDesiredAction(device: Device, action: DesiredAction | null): Promise<void>;
  /** A run started: remembers its name and clears desired_action, in one write. */
  recordRun(device: Device, run: string): Promise<void>;
  setStatus(device: Device, status: DeviceStatus): Promise<void>;
  close(): Promise<void>;
}

import type { Verdict } from '../../shared/wire/verdicts.js';
import type { AttestedFacts, Authorship, Device, DesiredAction, JournalEntry, JournalKind } from './device.js';

/**
 * Where devices are declared and where fleet writes back what it proved: NetBox in the lab, or the
 * embedded backend (the lab's nodes file and SQLite) on a single machine. Both behave the same;
 * one test suite runs against both.
 */
export interface Inventory {
  /** The device whose serial this is; null when none, or when two claim it (the caller is told which). */
  deviceBySerial(serial: string): Promise<Device | null>;
  deviceByName(hostname: string): Promise<Device | null>;
  /** Whether the device's binding was written by the trusted author. */
  bindingAuthorship(device: Device): Promise<Authorship>;
  /** Attested: the MAC, the attested_* facts and the verdict. */
  recordAttested(device: Device, facts: AttestedFacts): Promise<void>;
  /** A verdict and nothing else. */
  recordVerdict(device: Device, verdict: Verdict): Promise<void>;
  journal(device: Device, kind: JournalKind, message: string): Promise<void>;
  journalOf(device: Device): Promise<JournalEntry[]>;
  setDesiredAction(device: Device, action: DesiredAction | null): Promise<void>;
  close(): Promise<void>;
}

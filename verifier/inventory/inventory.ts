import type { EkKind } from '../../shared/wire/schemas.js';
import type { Verdict } from '../../shared/wire/verdicts.js';
import type { Binding } from '../attest/policy.js';

/** A declared node, as the inventory holds it. */
export interface NodeEntry {
  hostname: string;
  serial: string;
  binding: Binding;
  /** A provision waits for this device: an attested boot gets an install code. */
  provisionWaiting: boolean;
}

/** What an attestation proved, as it is recorded. */
export interface AttestationFacts {
  verdict: Verdict;
  at: string;
  mac: string;
  bootId: string;
  eks: Partial<Record<EkKind, string>>;
  secureBoot: boolean | null;
  lldp: string | null;
  peer: string;
}

/** A machine that proved its EKs but that no entry approves yet: what `fleet approve` prints. */
export interface Claim {
  serial: string;
  at: string;
  mac: string;
  peer: string;
  eks: Array<{ kind: EkKind; hash: string; hasCertificate: boolean }>;
}

/**
 * The inventory the verifier reads and writes. A refusal writes only the verdict; only an
 * attested machine gets its MAC and attested_* facts written.
 */
export interface Inventory {
  lookup(serial: string): Promise<NodeEntry | null>;
  /** Attested: records the facts and the verdict on the device. */
  recordAttested(entry: NodeEntry, facts: AttestationFacts): Promise<void>;
  /** Refused or waiting: records the verdict on the device and nothing else. */
  recordVerdict(entry: NodeEntry, verdict: Verdict, at: string): Promise<void>;
  /** Keeps the latest waiting claim for a serial. */
  recordClaim(claim: Claim): Promise<void>;
  claim(serial: string): Promise<Claim | null>;
  /** Keeps only the SHA-256 of an install code issued to this device for a waiting provision. */
  recordInstallCode(entry: NodeEntry, codeSha256: string, bootId: string, at: string): Promise<void>;
}

import type { EkKind } from '../../shared/wire/schemas.js';

/** A machine that proved its EKs but whose serial no entry approves yet: what `fleet attest approve` prints. */
export interface Claim {
  serial: string;
  at: string;
  mac: string;
  peer: string;
  /** The switch port LLDP named at the attestation, or null. */
  switchPort: string | null;
  eks: Array<{
    kind: EkKind;
    hash: string;
    /** The EK certificate's subject and issuer, when one came along (not checked against a maker CA). */
    certificate: { subject: string; issuer: string } | null;
  }>;
}

import type { EkKind } from '../../shared/wire/schemas.js';

/**
 * The EK certificate that came with an EK, kept for `fleet attest approve` to read again: its DER
 * (base64; without the NV header or padding, so no larger than the 8 KiB the wire allows). A claim
 * kept by an older fleetd holds only the certificate's subject and issuer, and no DER.
 */
export type ClaimCertificate = { der: string } | { der: null; subject: string; issuer: string };

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
    /** When one came along; it certifies this EK (admission checked that), whoever made it. */
    certificate: ClaimCertificate | null;
  }>;
}

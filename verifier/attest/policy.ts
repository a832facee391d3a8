import type { EkKind } from '../../shared/wire/schemas.js';
import type { PolicyVerdict } from '../../shared/wire/verdicts.js';
import type { Binding } from '../inventory/device.js';

export interface Decision {
  verdict: Exclude<PolicyVerdict, 'ek-binding-unauthored'>;
  message: string;
  /** For a refusal: the EK the TPM proved that the entry does not accept, for the audit line. */
  refused?: { kind: EkKind; hash: string; approved: string };
}

/**
 * Admission: a machine is admitted only when its TPM proved every EK its entry approves. No entry,
 * or an entry that approves nothing, waits for approval even when a trusted maker certified the
 * EKs: the trust source is the receiving step, not the certificate.
 */
export function decide(entry: { hostname: string; binding: Binding } | null, serial: string, proven: ReadonlyArray<{ kind: EkKind; hash: string }>): Decision {
  if (!entry) return { verdict: 'pending-approval', message: `no node entry names the serial ${serial}` };
  const approved = (Object.entries(entry.binding) as Array<[EkKind, string | undefined]>).filter((e): e is [EkKind, string] => !!e[1]);
  if (approved.length === 0) return { verdict: 'pending-approval', message: `${entry.hostname}'s entry approves no EK; approve its EKs` };
  for (const [kind, hash] of approved) {
    const p = proven.find((e) => e.kind === kind);
    if (p && p.hash !== hash) {
      return {
        verdict: 'ek-hash-mismatch',
        message: `the TPM's ${kind} EK ${p.hash} is not the one ${entry.hostname}'s entry approves`,
        refused: { kind, hash: p.hash, approved: hash },
      };
    }
  }
  for (const [kind] of approved) {
    if (!proven.some((e) => e.kind === kind))
      return { verdict: 'ek-missing', message: `the TPM proved no ${kind} EK, which ${entry.hostname}'s entry approves` };
  }
  return { verdict: 'attested', message: `${entry.hostname}: the TPM proved every EK its entry approves` };
}

import type { EkKind } from '../shared/wire/schemas.js';
import type { Claim } from './inventory/inventory.js';

const FIELDS: Record<EkKind, string> = { rsa2048: 'approved_ek_rsa2048', eccp256: 'approved_ek_eccp256' };

/**
 * The runbook's "Print the lines for the waiting claim": the claim, then the node entry's lines.
 * It approves nothing: a claim proves only that some TPM sent this serial.
 */
export function approvalLines(claim: Claim): string[] {
  const lines = [`claim: serial ${claim.serial}, MAC ${claim.mac}, from ${claim.peer}, at ${claim.at}`];
  for (const ek of claim.eks) lines.push(`  ${ek.kind} EK ${ek.hash} (EK certificate ${ek.hasCertificate ? 'present' : 'absent'})`);
  lines.push('Compare each hash with your evidence (a receiving scan, or the supplier\'s authenticated record).');
  lines.push('If one differs, stop: another TPM claims this serial. Otherwise add these lines to the node\'s entry:');
  for (const ek of claim.eks) lines.push(`${FIELDS[ek.kind]}: ${ek.hash}`);
  return lines;
}

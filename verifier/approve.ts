import type { EkKind } from '../shared/wire/schemas.js';
import type { Claim } from './inventory/inventory.js';

const FIELDS: Record<EkKind, string> = { rsa2048: 'approved_ek_rsa2048', eccp256: 'approved_ek_eccp256' };

/**
 * The runbook's "Print the lines for the waiting claim": the claim, then the node entry's lines.
 * It approves nothing: a waiting claim proves nothing, because another machine (or no TPM at all)
 * can send one with this serial. Only a comparison with independent evidence does.
 */
export function approvalLines(claim: Claim): string[] {
  const lines = [`claim: serial ${claim.serial}, MAC ${claim.mac}, from ${claim.peer}, at ${claim.at}`];
  for (const ek of claim.eks) lines.push(`  ${ek.kind} EK ${ek.hash} (an EK certificate ${ek.hasCertificate ? 'came with it, not checked against a maker' : 'did not come with it'})`);
  lines.push('A waiting claim proves nothing: another machine can send one with this serial.');
  lines.push('Compare each hash with your evidence (a receiving scan, or the supplier\'s authenticated record).');
  lines.push('If one differs, stop: another TPM claims this serial. Otherwise add these lines to the node\'s entry:');
  for (const ek of claim.eks) lines.push(`${FIELDS[ek.kind]}: ${ek.hash}`);
  return lines;
}

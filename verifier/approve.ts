import type { EkKind } from '../shared/wire/schemas.js';
import { printable } from '../shared/text/terminal.js';
import type { Claim } from './state/claim.js';

const FIELDS: Record<EkKind, string> = { rsa2048: 'approved_ek_rsa2048', eccp256: 'approved_ek_eccp256' };

/**
 * The runbook's "Print the lines for the waiting claim": the claim, then exactly the node entry's
 * lines. It approves nothing and says so: a waiting claim proves nothing, because another machine
 * can send one with this serial. Only a comparison with independent evidence does. What the
 * claimant sent is shown escaped (printable): it must not rewrite the operator's terminal.
 */
export function approvalLines(claim: Claim): string[] {
  const lines = [
    printable(`claim: serial ${claim.serial}, MAC ${claim.mac}, switch port ${claim.switchPort ?? '(no LLDP frame)'}, from ${claim.peer}, at ${claim.at}`),
  ];
  for (const ek of claim.eks) {
    const cert = ek.certificate
      ? `EK certificate subject "${printable(ek.certificate.subject)}", issuer "${printable(ek.certificate.issuer)}" (not checked against a maker)`
      : 'no EK certificate';
    lines.push(`  ${ek.kind} EK ${ek.hash}; ${cert}`);
  }
  lines.push('This approves nothing. A waiting claim proves nothing: another machine can send one with this serial.');
  lines.push("Compare each hash with your evidence (a receiving scan, or the supplier's authenticated record); if one differs, stop.");
  lines.push("Otherwise add these lines to the node's entry:");
  for (const ek of claim.eks) lines.push(`${FIELDS[ek.kind]}: ${ek.hash}`);
  return lines;
}

/** Said first when more than one TPM claims the serial: at most one of them is the machine. */
export function rivalClaimsLine(serial: string, count: number): string {
  return printable(
    `${count} different TPMs claim the serial ${serial}; at most one is that machine. Compare each claim below with your evidence, and add only the lines of the one that matches.`,
  );
}

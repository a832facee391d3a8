import { type CaCertificate, type ChainResult, chainFailureText, day, VALIDITY_WORDS, validityAt, verifyChain } from '../shared/ek-cert/chain.js';
import { type EkCertificate, ekHashOfCertificate, parseEkCertificate } from '../shared/ek-cert/ek-certificate.js';
import { nameText } from '../shared/ek-cert/names.js';
import { errorMessage } from '../shared/errors.js';
import { holderNames, PLATFORM_CERTIFICATE, platformChecks, type SerialSource } from '../shared/platform-cert/checks.js';
import type { PlatformCertificate } from '../shared/platform-cert/platform-certificate.js';
import type { EkKind } from '../shared/wire/schemas.js';
import { printableAscii } from '../shared/text/terminal.js';
import { APPROVE_LINES as L } from './approve-lines.js';
import type { Claim } from './state/claim.js';

const FIELDS: Record<EkKind, string> = { rsa2048: 'approved_ek_rsa2048', eccp256: 'approved_ek_eccp256' };

/**
 * What the operator brings to a claim: the EK CA certificates of --ek-roots (null without it), the
 * platform certificate of --platform-cert (if given) with the CA certificates of --platform-roots
 * (null without it), and today.
 */
export interface ApprovalEvidence {
  roots: CaCertificate[] | null;
  platform?: { certificate: PlatformCertificate; roots: CaCertificate[] | null };
  at: Date;
}

/** An EK of the claim whose kept certificate reads, and its chain to --ek-roots (null: not checked). */
interface CertifiedEk {
  kind: EkKind;
  hash: string;
  der: Uint8Array;
  cert: EkCertificate;
  chain: ChainResult | null;
}

/**
 * The runbook's "Print the lines for the waiting claim": the claim, each EK with what its
 * certificate says of the TPM and, with the operator's EK CA certificates, whether it chains to
 * them; then exactly the node entry's lines. It approves nothing and says so: a waiting claim
 * proves nothing, because another machine can send one with this serial, and a maker's
 * certificate says who made a TPM, not which machine it is in. Only a comparison with independent
 * evidence does; a platform certificate is such evidence only when its validated contents tie the
 * claim's serial to one of the claim's EK certificates (its holder), verified up to the
 * operator's roots, that EK certificate verified up to the EK roots and certifying the EK the TPM
 * proved, and even then admission never reads it. What the claimant sent, and what a
 * certificate says, is shown escaped (printableAscii): it must not rewrite the operator's terminal, nor pass a
 * look-alike for the ASCII it imitates.
 */
export function approvalLines(claim: Claim, evidence: ApprovalEvidence): string[] {
  const lines = [L.claim(claim.serial, claim.mac, claim.switchPort ?? L.noSwitchPort(), claim.peer, claim.at)];
  let verified = false;
  const certified: CertifiedEk[] = [];
  for (const ek of claim.eks) {
    const c = ek.certificate;
    if (c === null) lines.push(L.noCertificate(ek.kind, ek.hash));
    else if (c.der === null) lines.push(L.oldCertificate(ek.kind, ek.hash, c.subject, c.issuer));
    else {
      let cert: EkCertificate;
      try {
        cert = parseEkCertificate(Buffer.from(c.der, 'base64'));
      } catch (err) {
        lines.push(L.unreadableCertificate(ek.kind, ek.hash, errorMessage(err)));
        continue;
      }
      const chain = evidence.roots && verifyChain(cert.cert, evidence.roots);
      certified.push({ kind: ek.kind, hash: ek.hash, der: Buffer.from(c.der, 'base64'), cert, chain });
      lines.push(...certificateLines(ek.kind, ek.hash, cert, evidence.at));
      lines.push(...chainLines(chain));
      verified ||= chain?.verified === true;
    }
  }
  const tied = evidence.platform && platformLines(claim, certified, evidence.platform.certificate, evidence.platform.roots);
  if (tied) lines.push(...tied.lines);
  lines.push(L.approvesNothing());
  if (verified) lines.push(L.chainIsNoApproval());
  if (tied?.verified) lines.push(L.platformIsNoApproval());
  lines.push(L.compare(), L.addLines());
  for (const ek of claim.eks) lines.push(L.binding(FIELDS[ek.kind], ek.hash));
  return lines.map(printableAscii);
}

function certificateLines(kind: EkKind, hash: string, ek: EkCertificate, at: Date): string[] {
  const t = ek.tpm;
  const maker = t.manufacturer === null ? '(none named)' : `${t.manufacturer}${t.vendor ? ` (${t.vendor})` : ''}`;
  const spec = ek.spec ? `family ${ek.spec.family}, level ${ek.spec.level}, revision ${ek.spec.revision}` : '(none)';
  const { issuer, subject, notBefore, notAfter } = ek.cert;
  return [
    L.certificate(kind, hash, maker, t.model ?? '(none)', t.version ?? '(none)'),
    L.certificateNames(
      nameText(issuer) || '(empty)',
      nameText(subject) || '(empty)',
      day(notBefore),
      day(notAfter),
      VALIDITY_WORDS[validityAt(ek.cert, at)],
      day(at),
      spec,
    ),
  ];
}

function chainLines(chain: ChainResult | null): string[] {
  if (chain === null) return [L.chainNotChecked()];
  const head = chain.verified ? L.chainVerified(chain.path.at(-1)!.source) : L.chainNotVerified(chainFailureText(chain.failure));
  return [head, ...chain.path.map((ca) => L.issuedBy(ca.source, nameText(ca.cert.subject)))];
}

/**
 * What the platform certificate ties: the claim's EK certificate its holder names, checked with
 * the claim's serial and the chain to `roots`. A holder is an issuer and a serial, which anyone
 * can copy onto a certificate of their own key, so it counts only for an EK certificate that
 * verified up to --ek-roots and certifies the very EK the claim's TPM proved; and every
 * certificate of both chains must have been valid when the claim was made. One line when every
 * check passed; else one for each that failed.
 */
function platformLines(claim: Claim, eks: CertifiedEk[], pc: PlatformCertificate, roots: CaCertificate[] | null): { lines: string[]; verified: boolean } {
  const named = eks.find((ek) => holderNames(pc, ek.cert.cert)) ?? null;
  const held = named && heldProblem(named) === null ? named : null;
  const lines: string[] = named && !held ? [L.platformCheckFailed('holder', heldProblem(named)!)] : [];
  let source: SerialSource | null = null;
  let root: string | null = null;
  const pcChain = roots && verifyChain(pc.cert, roots);
  for (const c of platformChecks(pc, held?.cert.cert ?? null, claim.serial, pcChain)) {
    if (c.check === 'holder' && !c.passed && named && !held) continue; // said above, with why
    if (!c.passed) lines.push(c.reason === 'chain-not-checked' ? L.platformChainNotChecked() : L.platformCheckFailed(c.check, c.message));
    else if (c.check === 'serial') source = c.matched;
    else if (c.check === 'chain') root = c.root;
  }
  const at = new Date(claim.at);
  const dated = [
    { what: PLATFORM_CERTIFICATE, cert: pc.cert },
    ...(pcChain?.path ?? []).map((ca) => ({ what: `its CA ${ca.source}`, cert: ca.cert })),
    ...(held
      ? [
          { what: `the ${held.kind} EK certificate`, cert: held.cert.cert },
          ...(held.chain?.path ?? []).map((ca) => ({ what: `its EK CA ${ca.source}`, cert: ca.cert })),
        ]
      : []),
  ];
  for (const { what, cert } of dated) {
    const v = validityAt(cert, at);
    if (v !== 'valid')
      lines.push(
        L.platformCheckFailed(
          'validity',
          `${what} was ${VALIDITY_WORDS[v]} when the claim was made, ${day(at)} (valid ${day(cert.notBefore)} to ${day(cert.notAfter)})`,
        ),
      );
  }
  if (lines.length > 0 || !held || !source || !root) return { lines, verified: false };
  const ek = held.cert.cert;
  return { lines: [L.platformTie(source, claim.serial.trim(), held.kind, held.hash, nameText(ek.issuer) || '(empty)', ek.serial, root)], verified: true };
}

/** Why the EK certificate a holder names cannot stand for the claim's TPM, or null when it can. */
function heldProblem(ek: CertifiedEk): string | null {
  const names = `its holder names the ${ek.kind} EK certificate (issuer "${nameText(ek.cert.cert.issuer) || '(empty)'}", serial ${ek.cert.cert.serial})`;
  if (ekHashOfCertificate(ek.der) !== ek.hash) return `${names}, which certifies another key than the EK the claim's TPM proved`;
  if (ek.chain === null)
    return `${names}, whose chain was not checked: give --ek-roots, since anyone can copy an issuer and a serial onto a certificate of their own key`;
  if (!ek.chain.verified)
    return `${names}, whose chain is not verified to --ek-roots (${chainFailureText(ek.chain.failure)}): anyone can copy an issuer and a serial onto a certificate of their own key`;
  return null;
}

/** Said first when claims of the serial were shed for others': the one that matters may be gone. */
export function shedClaimsLine(serial: string, shed: { count: number; lastAt: string }): string {
  return printableAscii(L.shedClaims(String(shed.count), serial, shed.lastAt));
}

/** Said first when more than one TPM claims the serial: at most one of them is the machine. */
export function rivalClaimsLine(serial: string, count: number): string {
  return printableAscii(L.rivalClaims(String(count), serial));
}

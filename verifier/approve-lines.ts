/**
 * The lines `fleet attest approve` prints (approve.ts composes them for each waiting claim). What
 * an EK certificate, a chain and a platform certificate say is evidence to weigh, shown beside the
 * hashes; the closing lines say, whatever it shows, that the lines approve nothing and the hashes
 * must be compared.
 */
import { said } from '../shared/text/line-def.js';

export const APPROVE_LINES = {
  shedClaims: said({
    when: 'first, when claims of the serial were shed to make room for other addresses’ (a flood)',
    args: ['count', 'serial', 'at'],
    text: (count, serial, at) =>
      `${count} claims of the serial ${serial} were shed to make room for other addresses' claims, the last at ${at}: the machine's own may be among them. Power it on again so that HookOS attests, then run this again.`,
  }),
  rivalClaims: said({
    when: 'first, when more than one TPM claims the serial',
    args: ['count', 'serial'],
    text: (count, serial) =>
      `${count} different TPMs claim the serial ${serial}; at most one is that machine. Compare each claim below with your evidence, and add only the lines of the one that matches.`,
  }),
  claim: said({
    when: 'each waiting claim, first',
    args: ['serial', 'MAC', 'switch port', 'peer', 'at'],
    text: (serial, mac, port, peer, at) => `claim: serial ${serial}, MAC ${mac}, switch port ${port}, from ${peer}, at ${at}`,
  }),
  noSwitchPort: said({ when: "in a claim's line, for an attestation without an LLDP frame", args: [], text: () => '(no LLDP frame)' }),
  noCertificate: said({
    when: 'each EK that came without a certificate',
    args: ['kind', 'EK hash'],
    text: (kind, hash) => `  ${kind} EK ${hash}; no EK certificate`,
  }),
  certificate: said({
    when: "each EK that came with a certificate (which certifies it: admission checked that): the TPM it names, as its maker's CA signed it",
    args: ['kind', 'EK hash', 'manufacturer', 'model', 'version'],
    text: (kind, hash, manufacturer, model, version) => `  ${kind} EK ${hash}; EK certificate of a TPM by ${manufacturer}, model ${model}, version ${version}`,
  }),
  certificateNames: said({
    when: 'after the certificate line: its issuer and subject, its validity (shown, never failed: a TPM outlives its certificate), the TPM specification',
    args: ['issuer', 'subject', 'not before', 'not after', 'valid, expired or not yet valid', 'today', 'TPM spec'],
    text: (issuer, subject, from, to, validity, today, spec) =>
      `    issuer "${issuer}", subject "${subject}"; ${from} to ${to}: ${validity} on ${today}; TPM spec ${spec}`,
  }),
  oldCertificate: said({
    when: 'each EK certificate of a claim kept by an older fleetd, which kept only its subject and issuer',
    args: ['kind', 'EK hash', 'subject', 'issuer'],
    text: (kind, hash, subject, issuer) =>
      `  ${kind} EK ${hash}; EK certificate subject "${subject}", issuer "${issuer}" (kept by an older fleetd without the certificate: attest again to see its TPM and chain)`,
  }),
  unreadableCertificate: said({
    when: "each EK certificate kept with the claim that this fleet cannot read (fleetd read it at admission, so a newer fleetd's reading differs)",
    args: ['kind', 'EK hash', 'why'],
    text: (kind, hash, why) => `  ${kind} EK ${hash}; EK certificate that does not read: ${why}`,
  }),
  chainVerified: said({
    when: "with --ek-roots, when the certificate chains to a root in DIR; the CA certificates that verified follow, the certificate's issuer first",
    args: ['root'],
    text: (root) => `    chain: verified up to the root ${root}`,
  }),
  chainNotVerified: said({
    when: "with --ek-roots, when it does not, and why; the CA certificates that did verify follow, the certificate's issuer first",
    args: ['why'],
    text: (why) => `    chain: not verified: ${why}`,
  }),
  chainNotChecked: said({
    when: 'without --ek-roots',
    args: [],
    text: () => "    chain: not checked: give --ek-roots DIR, with the TPM makers' EK CA certificates",
  }),
  issuedBy: said({
    when: 'after a chain line, for each CA certificate on the way, up to the root',
    args: ['CA file', 'its subject'],
    text: (source, subject) => `      issued by ${source}: ${subject}`,
  }),
  platformTie: said({
    when: "with --platform-cert, when every check passed: which of its serials is the machine's, the claim's EK certificate its holder names, and that its holder, serial and chain verified",
    args: ['platform, chassis or baseboard', 'serial', 'kind', 'EK hash', "EK certificate's issuer", "EK certificate's serial", 'root'],
    text: (source, serial, kind, hash, issuer, ekSerial, root) =>
      `  platform certificate: ties its ${source} serial ${serial} to the ${kind} EK certificate (issuer "${issuer}", serial ${ekSerial}) of EK ${hash}; verified: its holder, its serial, and its chain up to the root ${root}`,
  }),
  platformCheckFailed: said({
    when: "with --platform-cert, for each of its checks that failed (holder, serial, chain, validity), and why; a delta certificate fails the holder check (its holder is its base certificate), as does a holder whose EK certificate is not verified to --ek-roots or certifies another key than the claim's EK",
    args: ['check', 'why'],
    text: (check, why) => `  platform certificate: ${check} not verified: ${why}`,
  }),
  platformChainNotChecked: said({
    when: 'with --platform-cert, without --platform-roots: its chain fails as not checked',
    args: [],
    text: () => "  platform certificate: chain not checked: give --platform-roots DIR, with the platform maker's CA certificates",
  }),
  approvesNothing: said({
    when: "after the claim's EKs, always",
    args: [],
    text: () => 'This approves nothing. A waiting claim proves nothing: another machine can send one with this serial.',
  }),
  chainIsNoApproval: said({
    when: 'next, when a chain verified',
    args: [],
    text: () => 'A verified chain says who made a TPM, not which machine it is in: compare the hashes all the same.',
  }),
  platformIsNoApproval: said({
    when: 'next, when a platform certificate verified',
    args: [],
    text: () =>
      "A verified platform certificate is its maker's signed word that the machine with this serial holds that EK certificate: evidence to weigh, which admission never reads. Compare the hashes all the same.",
  }),
  compare: said({
    when: 'next, always',
    args: [],
    text: () => "Compare each hash with your evidence (a receiving scan, or the supplier's authenticated record); if one differs, stop.",
  }),
  addLines: said({ when: 'next, always; then exactly the binding lines', args: [], text: () => "Otherwise add these lines to the node's entry:" }),
  binding: said({
    when: 'last, for each EK: the line of the entry that approves it',
    args: ['field', 'EK hash'],
    text: (field, hash) => `${field}: ${hash}`,
  }),
};

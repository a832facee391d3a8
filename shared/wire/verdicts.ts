/**
 * Verdicts: stable strings on the wire, in audit lines, in the inventory and on the console
 * (`attest: FAILED <verdict>`). The first five are the runbook's words. Each one's meaning is said
 * here once: docs/reference/verdicts.md is rendered from it.
 */
const POLICY = {
  attested: 'the TPM proved every EK the entry approves',
  'pending-approval': 'no entry names the serial, or the entry approves no EK (the claim is kept for `fleet attest approve`)',
  'ek-hash-mismatch': "the TPM's EK of an approved kind has another hash (the audit line names the refused hash)",
  'ek-missing': 'the TPM proved no EK of a kind the entry approves',
  'ek-binding-unauthored': "the entry's EK binding was not written by the binding author the verifier trusts (NetBox's changelog)",
} as const;

/** Refusals of the evidence itself, before any policy is read. */
const PROTOCOL = {
  'session-unknown': 'no such session: never issued, or the verifier restarted',
  'session-expired': 'the session outlived its 60 s',
  'session-replayed': 'the session was already finished once',
  'credential-mismatch': 'an activated secret is wrong: the EK is not in the TPM that holds the AK',
  'ek-invalid': 'an EK public is not a usable EK of its kind',
  'ek-cert-mismatch': 'an EK certificate does not read, or certifies another key than the EK the TPM proved',
  'ak-invalid': 'the AK is not a restricted, fixedTPM signing key',
  'quote-invalid': "the quote is malformed, or its signature is not the AK's",
  'quote-stale': "the quote does not sign this session's nonce and this report",
  'report-invalid': 'the report is not canonical, or contradicts the start',
  'pcr-mismatch': 'the PCR values sent do not hash to the quoted digest',
  'eventlog-invalid': 'the event log does not parse',
  'eventlog-mismatch': 'the event log does not replay to the quoted PCRs, or is not the one reported',
  'eventlog-missing': 'no event log was sent',
} as const;

export type PolicyVerdict = keyof typeof POLICY;
export type ProtocolVerdict = keyof typeof PROTOCOL;
export type Verdict = PolicyVerdict | ProtocolVerdict;

export const POLICY_VERDICTS = Object.keys(POLICY) as PolicyVerdict[];
export const PROTOCOL_VERDICTS = Object.keys(PROTOCOL) as ProtocolVerdict[];
export const VERDICTS: readonly Verdict[] = [...POLICY_VERDICTS, ...PROTOCOL_VERDICTS];

/** What each verdict means, as the operator reads it. */
export const VERDICT_MEANINGS: Readonly<Record<Verdict, string>> = { ...POLICY, ...PROTOCOL };

/**
 * Verdicts after which starting over may succeed without anyone changing anything: the verifier
 * lost or timed out the session. The agent spends a try on them, as on a network error.
 */
export const RETRYABLE_VERDICTS: ReadonlySet<Verdict> = new Set<Verdict>(['session-unknown', 'session-expired']);

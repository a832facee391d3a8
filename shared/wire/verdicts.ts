/**
 * Verdicts: stable strings on the wire, in audit lines, in the inventory and on the console
 * (`attest: FAILED <verdict>`). The first five are the runbook's words.
 */
export const POLICY_VERDICTS = ['attested', 'pending-approval', 'ek-hash-mismatch', 'ek-missing', 'ek-binding-unauthored'] as const;

/** Refusals of the evidence itself, before any policy is read. */
export const PROTOCOL_VERDICTS = [
  'session-unknown', // no such session: never issued, or the verifier restarted
  'session-expired', // the session outlived its time to live
  'session-replayed', // the session was already finished once
  'credential-mismatch', // an activated secret is wrong: the EK is not in the TPM that holds the AK
  'ek-invalid', // an EK public is not a usable EK of its kind
  'ek-cert-mismatch', // an EK certificate certifies another key than the EK the TPM proved
  'ak-invalid', // the AK is not a restricted, fixedTPM signing key
  'quote-invalid', // the quote is malformed, or its signature is not the AK's
  'quote-stale', // the quote does not sign this session's nonce and this report
  'report-invalid', // the report is not canonical, or contradicts the start
  'pcr-mismatch', // the PCR values sent do not hash to the quoted digest
  'eventlog-invalid', // the event log does not parse
  'eventlog-mismatch', // the event log does not replay to the quoted PCRs, or is not the one reported
  'eventlog-missing', // no event log was sent
] as const;

export type PolicyVerdict = (typeof POLICY_VERDICTS)[number];
export type ProtocolVerdict = (typeof PROTOCOL_VERDICTS)[number];
export type Verdict = PolicyVerdict | ProtocolVerdict;

export const VERDICTS: readonly Verdict[] = [...POLICY_VERDICTS, ...PROTOCOL_VERDICTS];

/**
 * Verdicts after which starting over may succeed without anyone changing anything: the verifier
 * lost or timed out the session. The agent spends a try on them, as on a network error.
 */
export const RETRYABLE_VERDICTS: ReadonlySet<Verdict> = new Set<Verdict>(['session-unknown', 'session-expired']);

import { createHash, timingSafeEqual } from 'node:crypto';
import { bytesEqual, fromHex } from '../../shared/bytes/hex.js';
import { errorMessage } from '../../shared/errors.js';
import { bootImages } from '../../shared/eventlog/boot-image.js';
import { parseEventLog } from '../../shared/eventlog/parse.js';
import { secureBootState } from '../../shared/eventlog/secureboot.js';
import { comparePcrs } from '../../shared/eventlog/verify.js';
import { parseQuoteAttest, type QuoteAttest } from '../../shared/tpm/attest.js';
import { EV_NO_ACTION } from '../../shared/eventlog/types.js';
import { HASHES, TPM_ALG } from '../../shared/tpm/constants.js';
import { parseSignature, verifySignature } from '../../shared/tpm/signature.js';
import { parseReport } from '../../shared/wire/report.js';
import type { FinishRequest, Report } from '../../shared/wire/schemas.js';
import type { Claim } from '../state/claim.js';
import type { MeasuredBoot } from './boot-policy.js';
import { Refusal } from './refusal.js';
import type { Session } from './session-store.js';

/** What a `finish` proved: these EKs are in the TPM that quoted this report and these PCRs. */
export interface Evidence {
  proven: Claim['eks'];
  report: Report;
  /** What the event log proves of Secure Boot and of the images that ran (a class's policy is checked against it). */
  boot: MeasuredBoot;
  /** Notes from the event log checks (e.g. the firmware's missing ExitBootServices events). */
  notes: string[];
}

/** Every PCR of the SHA-256 bank: a quote of fewer would leave boot state unexamined. */
const QUOTED_PCRS = Array.from({ length: 24 }, (_, i) => i);
/** What every UEFI firmware measures (at least its separators): a log without them describes no boot. */
const FIRMWARE_PCRS = [0, 1, 2, 3, 4, 5, 6, 7];

/**
 * Checks a `finish` against its session. Pure: no I/O, no clock. Each failed check is a
 * `Refusal` whose code names it. Order: the secrets prove every claimed EK sits in the AK's TPM
 * (`checkSecrets`, which the caller runs first); the quote proves that TPM signed this nonce, this
 * report and all 24 SHA-256 PCRs; the event log must describe a firmware boot and replay to them.
 */
export function checkEvidence(session: Session, req: FinishRequest): Evidence {
  checkSecrets(session, req);
  return checkQuotedBoot(session, req);
}

/** Everything after the secrets: what the proven TPM signed, and the boot it describes. */
export function checkQuotedBoot(session: Session, req: FinishRequest): Evidence {
  const reportRaw = Buffer.from(req.report, 'base64');
  const attest = checkQuote(session, req, reportRaw);
  const pcrs = checkPcrs(session, attest, req);
  const report = checkReport(session, reportRaw);
  const { boot, notes } = checkEventLog(req, report, pcrs);
  return { proven: session.eks.map((e) => ({ kind: e.kind, hash: e.hash, certificate: e.certificate })), report, boot, notes };
}

/** The secrets prove every claimed EK sits in the TPM that holds the AK. */
export function checkSecrets(session: Session, req: FinishRequest): void {
  for (const ek of session.eks) {
    const sent = req.secrets.filter((s) => s.kind === ek.kind);
    const expected = session.secrets.get(ek.kind)!;
    const got = sent.length === 1 ? Buffer.from(sent[0]!.secret, 'base64') : Buffer.alloc(0);
    // Compare in constant time; a length difference reveals nothing the attacker did not send.
    const ok = got.length === expected.length && timingSafeEqual(got, expected);
    if (!ok) throw new Refusal('credential-mismatch', `the ${ek.kind} EK's credential was not activated by the TPM that holds the AK`);
  }
  if (req.secrets.length !== session.eks.length) throw new Refusal('credential-mismatch', 'the secrets do not match the challenged EKs');
}

function checkQuote(session: Session, req: FinishRequest, reportRaw: Uint8Array): QuoteAttest {
  const attestRaw = Buffer.from(req.quote.attest, 'base64');
  let attest: QuoteAttest;
  try {
    attest = parseQuoteAttest(attestRaw);
    if (!verifySignature(session.ak.pub, session.ak.key, attestRaw, parseSignature(Buffer.from(req.quote.signature, 'base64')))) {
      throw new Refusal('quote-invalid', 'the quote is not signed by the AK');
    }
  } catch (err) {
    if (err instanceof Refusal) throw err;
    throw new Refusal('quote-invalid', `the quote does not parse: ${errorMessage(err)}`);
  }
  const expected = createHash('sha256').update(session.nonce).update(reportRaw).digest();
  if (!bytesEqual(attest.extraData, expected)) {
    throw new Refusal('quote-stale', "the quote does not sign this session's nonce and this report");
  }
  return attest;
}

/**
 * The quote must cover all 24 SHA-256 PCRs, and the values sent must be those and hash (with the
 * AK's scheme hash, as the TPM computes pcrDigest) to the quoted digest.
 */
function checkPcrs(session: Session, attest: QuoteAttest, req: FinishRequest): Map<number, Uint8Array> {
  const sel = attest.pcrSelect.filter((s) => s.pcrs.length > 0);
  if (sel.length !== 1 || sel[0]!.hashAlg !== TPM_ALG.SHA256 || sel[0]!.pcrs.join(',') !== QUOTED_PCRS.join(',')) {
    throw new Refusal('pcr-mismatch', 'the quote does not cover exactly PCRs 0-23 of the SHA-256 bank');
  }
  const indices = sel[0]!.pcrs;
  const sent = Object.keys(req.pcrs)
    .map(Number)
    .sort((a, b) => a - b);
  if (sent.length !== indices.length || sent.some((v, i) => v !== indices[i])) {
    throw new Refusal('pcr-mismatch', `the PCRs sent (${sent.join(',')}) are not the PCRs quoted (${indices.join(',')})`);
  }
  const pcrs = new Map<number, Uint8Array>();
  const h = createHash(HASHES[session.ak.pub.scheme.hashAlg!]!.node);
  for (const i of indices) {
    const v = fromHex(req.pcrs[String(i)]!);
    pcrs.set(i, v);
    h.update(v);
  }
  if (!bytesEqual(h.digest(), attest.pcrDigest)) throw new Refusal('pcr-mismatch', 'the PCR values sent do not hash to the quoted PCR digest');
  return pcrs;
}

function checkReport(session: Session, reportRaw: Uint8Array): Report {
  let report: Report;
  try {
    report = parseReport(reportRaw);
  } catch (err) {
    throw new Refusal('report-invalid', errorMessage(err));
  }
  if (report.session !== session.id) throw new Refusal('report-invalid', 'the report names another session');
  if (report.serial !== session.serial || report.mac !== session.mac)
    throw new Refusal('report-invalid', "the report's serial or MAC differs from the start's");
  return report;
}

function checkEventLog(req: FinishRequest, report: Report, pcrs: Map<number, Uint8Array>): { boot: MeasuredBoot; notes: string[] } {
  if (req.eventLog === null || report.eventLogSha256 === null) {
    throw new Refusal('eventlog-missing', 'no event log was sent: the verifier cannot tell what booted');
  }
  const raw = Buffer.from(req.eventLog, 'base64');
  if (createHash('sha256').update(raw).digest('hex') !== report.eventLogSha256) {
    throw new Refusal('eventlog-mismatch', 'the event log sent is not the one the quoted report names');
  }
  let log;
  try {
    log = parseEventLog(raw);
  } catch (err) {
    throw new Refusal('eventlog-invalid', errorMessage(err));
  }
  const measured = new Set(Array.from({ length: log.length }, (_, i) => (log.typeOf(i) === EV_NO_ACTION ? -1 : log.pcrOf(i))));
  const unmeasured = FIRMWARE_PCRS.filter((p) => !measured.has(p));
  if (unmeasured.length)
    throw new Refusal('eventlog-invalid', `the event log measures nothing into PCR ${unmeasured.join(', ')}: it does not describe a firmware boot`);
  const cmp = comparePcrs(log, 'sha256', pcrs);
  if (!cmp.ok) throw new Refusal('eventlog-mismatch', `the event log does not replay to the quoted PCR ${cmp.mismatched.join(', ')}`);
  const secureBoot = secureBootState(log, 'sha256');
  return { boot: { secureBoot: secureBoot.enabled, secureBootProblem: secureBoot.problems[0] ?? null, images: bootImages(log) }, notes: cmp.notes };
}

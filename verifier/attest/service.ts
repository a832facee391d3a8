import { errorMessage } from '../../shared/errors.js';
import type { FinishRequest, FinishResponse, StartRequest, StartResponse } from '../../shared/wire/schemas.js';
import type { Audit } from '../audit.js';
import { installCodeHash, newInstallCode } from '../install-code.js';
import type { Inventory, NodeEntry } from '../inventory/inventory.js';
import { startSession } from './challenge.js';
import { checkQuotedBoot, checkSecrets, type Evidence } from './evidence.js';
import { decide, type Decision } from './policy.js';
import { Refusal } from './refusal.js';
import { SessionStore, type Session } from './session-store.js';

export interface AttestationServiceOptions {
  inventory: Inventory;
  audit: Audit;
  sessions?: SessionStore;
  now?: () => Date;
}

/**
 * The attestation service: `start` issues the challenges, `finish` checks the evidence, applies
 * the admission policy, records the outcome, and answers a verdict (and an install code when an
 * attested device has a provision waiting). Every `finish` leaves one `attest.verdict` audit line.
 *
 * What a refusal may write, since anyone can claim any serial at `start`: nothing before the TPM
 * has proven its EKs; after that, the verdict only on the device whose approved EKs it proved
 * (its own TPM, failing later checks); `ek-hash-mismatch` and `ek-missing` nothing at all (the
 * runbook: "Nothing was written"); `pending-approval` the verdict on an entry that approves no EK,
 * and the claim for `fleet approve`.
 */
export class AttestationService {
  readonly sessions: SessionStore;
  private readonly inventory: Inventory;
  private readonly audit: Audit;
  private readonly now: () => Date;

  constructor(opts: AttestationServiceOptions) {
    this.inventory = opts.inventory;
    this.audit = opts.audit;
    this.sessions = opts.sessions ?? new SessionStore();
    this.now = opts.now ?? (() => new Date());
  }

  /** Refusals of the claimed keys are answered as a verdict too: the agent prints it and stops. */
  start(req: StartRequest, peer: string): StartResponse | FinishResponse {
    try {
      return startSession(this.sessions, req, peer).response;
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      this.audit('attest.verdict', { serial: req.serial, mac: req.mac, peer, verdict: err.code, reason: err.message, stage: 'start' });
      return { verdict: err.code, message: err.message };
    }
  }

  async finish(req: FinishRequest, peer: string): Promise<FinishResponse> {
    let session: Session;
    try {
      session = this.sessions.take(req.session);
      this.sessions.checkLive(session);
      checkSecrets(session, req);
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      this.audit('attest.verdict', { peer, session: req.session, verdict: err.code, reason: err.message });
      return { verdict: err.code, message: err.message };
    }
    const base = { serial: session.serial, mac: session.mac, peer, session: session.id, eks: Object.fromEntries(session.eks.map((e) => [e.kind, e.hash])) };
    try {
      return await this.judge(session, req, base);
    } catch (err) {
      // The inventory failed: no answer but an error, so the agent tries again; the audit says why.
      this.audit('attest.verdict', { ...base, verdict: 'error', reason: errorMessage(err) });
      throw err;
    }
  }

  private async judge(session: Session, req: FinishRequest, base: Record<string, unknown>): Promise<FinishResponse> {
    const at = this.now().toISOString();
    const entry = await this.inventory.lookup(session.serial);
    const decision = decide(entry && { hostname: entry.hostname, binding: entry.binding }, session.serial, session.eks);
    let evidence: Evidence;
    try {
      evidence = checkQuotedBoot(session, req);
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      this.audit('attest.verdict', { ...base, node: entry?.hostname, verdict: err.code, reason: err.message });
      // Only the device's own TPM may mark the device; anyone else's refusal stays in the audit.
      if (entry && decision.verdict === 'attested') await this.inventory.recordVerdict(entry, err.code, at);
      return { verdict: err.code, message: err.message };
    }

    this.audit('attest.verdict', {
      ...base,
      node: entry?.hostname,
      verdict: decision.verdict,
      reason: decision.message,
      refused: decision.refused,
      secureBoot: evidence.secureBoot,
      notes: evidence.notes.length ? evidence.notes : undefined,
    });
    if (decision.verdict === 'pending-approval') {
      await this.inventory.recordClaim({ serial: session.serial, at, mac: session.mac, peer: base.peer as string, eks: evidence.proven });
      if (entry) await this.inventory.recordVerdict(entry, decision.verdict, at);
    }
    if (decision.verdict !== 'attested' || !entry) return { verdict: decision.verdict, message: wireMessage(decision) };
    return this.admit(entry, evidence, decision, at, base.peer as string);
  }

  private async admit(entry: NodeEntry, evidence: Evidence, decision: Decision, at: string, peer: string): Promise<FinishResponse> {
    const { report } = evidence;
    await this.inventory.recordAttested(entry, {
      verdict: 'attested',
      at,
      mac: report.mac,
      bootId: report.bootId,
      eks: Object.fromEntries(evidence.proven.map((e) => [e.kind, e.hash])),
      secureBoot: evidence.secureBoot,
      lldp: report.lldp,
      peer,
    });
    if (!entry.provisionWaiting) {
      this.audit('attest.install', { node: entry.hostname, serial: entry.serial, issued: false, reason: 'no provision' });
      return { verdict: 'attested', message: 'the TPM proved every EK the entry approves' };
    }
    const code = newInstallCode();
    try {
      await this.inventory.recordInstallCode(entry, installCodeHash(code), report.bootId, at);
    } catch (err) {
      // No record, no code: a code the verifier cannot later recognise must not reach the disk.
      this.audit('attest.install', { node: entry.hostname, serial: entry.serial, issued: false, reason: errorMessage(err) });
      return { verdict: 'attested', message: 'the TPM proved every EK the entry approves; no install code: the inventory could not record it' };
    }
    this.audit('attest.install', { node: entry.hostname, serial: entry.serial, bootId: report.bootId, issued: true });
    return { verdict: 'attested', message: 'the TPM proved every EK the entry approves; a provision waits', installCode: code };
  }
}

/**
 * What the caller is told: the verdict in plain words, without the node's host name or which EK
 * kinds its entry approves (the caller may be anyone claiming the serial; the audit line has it all).
 */
function wireMessage(d: Decision): string {
  switch (d.verdict) {
    case 'pending-approval':
      return 'no EK of this machine is approved yet; approve its EKs';
    case 'ek-hash-mismatch':
      return 'an EK this TPM proved is not the one the entry approves';
    case 'ek-missing':
      return 'this TPM proved no EK of a kind the entry approves';
    default:
      return d.message;
  }
}

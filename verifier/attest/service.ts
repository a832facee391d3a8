import { errorMessage } from '../../shared/errors.js';
import type { FinishRequest, FinishResponse, StartRequest, StartResponse } from '../../shared/wire/schemas.js';
import type { Audit } from '../audit.js';
import { installCodeHash, newInstallCode } from '../install-code.js';
import type { Inventory } from '../inventory/inventory.js';
import { startSession } from './challenge.js';
import { checkEvidence } from './evidence.js';
import { decide } from './policy.js';
import { Refusal } from './refusal.js';
import { SessionStore } from './session-store.js';

export interface AttestationServiceOptions {
  inventory: Inventory;
  audit: Audit;
  sessions?: SessionStore;
  now?: () => Date;
}

/**
 * The attestation service: `start` issues the challenges, `finish` checks the evidence, applies
 * the admission policy, records the outcome, and answers a verdict (and an install code when an
 * attested device has a provision waiting). Every outcome leaves exactly one `attest.verdict`
 * audit line; a refusal writes nothing to the device but its verdict.
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
      return startSession(this.sessions, req).response;
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      this.audit('attest.verdict', { serial: req.serial, mac: req.mac, peer, verdict: err.code, reason: err.message, stage: 'start' });
      return { verdict: err.code, message: err.message };
    }
  }

  async finish(req: FinishRequest, peer: string): Promise<FinishResponse> {
    const at = this.now().toISOString();
    let session;
    let evidence;
    try {
      session = this.sessions.take(req.session);
      this.sessions.checkLive(session);
      evidence = checkEvidence(session, req);
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      const serial = session?.serial;
      this.audit('attest.verdict', { serial, mac: session?.mac, peer, session: req.session, verdict: err.code, reason: err.message });
      if (serial !== undefined) await this.inventory.recordVerdict(serial, err.code, at);
      return { verdict: err.code, message: err.message };
    }

    const { report, proven } = evidence;
    const entry = await this.inventory.lookup(report.serial);
    const decision = decide(entry && { hostname: entry.hostname, binding: entry.binding }, report.serial, proven);
    const eks = Object.fromEntries(proven.map((e) => [e.kind, e.hash]));
    this.audit('attest.verdict', {
      serial: report.serial,
      node: entry?.hostname,
      mac: report.mac,
      peer,
      session: session.id,
      verdict: decision.verdict,
      reason: decision.message,
      eks,
      refused: decision.refused,
      secureBoot: evidence.secureBoot,
      notes: evidence.notes.length ? evidence.notes : undefined,
    });

    if (decision.verdict === 'pending-approval') {
      await this.inventory.recordClaim({ serial: report.serial, at, mac: report.mac, peer, eks: proven });
    }
    if (decision.verdict !== 'attested' || !entry) {
      await this.inventory.recordVerdict(report.serial, decision.verdict, at);
      return { verdict: decision.verdict, message: decision.message };
    }

    await this.inventory.recordAttested(entry, {
      verdict: 'attested',
      at,
      mac: report.mac,
      bootId: report.bootId,
      eks,
      secureBoot: evidence.secureBoot,
      lldp: report.lldp,
      peer,
    });
    if (!entry.provisionWaiting) {
      this.audit('attest.install', { node: entry.hostname, serial: entry.serial, issued: false, reason: 'no provision' });
      return { verdict: 'attested', message: decision.message };
    }
    const code = newInstallCode();
    try {
      await this.inventory.recordInstallCode(entry, installCodeHash(code), report.bootId, at);
    } catch (err) {
      // No record, no code: a code the verifier cannot later recognise must not reach the disk.
      this.audit('attest.install', { node: entry.hostname, serial: entry.serial, issued: false, reason: errorMessage(err) });
      return { verdict: 'attested', message: `${decision.message}; no install code: ${errorMessage(err)}` };
    }
    this.audit('attest.install', { node: entry.hostname, serial: entry.serial, bootId: report.bootId, issued: true });
    return { verdict: 'attested', message: `${decision.message}; a provision waits`, installCode: code };
  }
}

import { errorMessage } from '../../shared/errors.js';
import type { FinishRequest, FinishResponse, StartRequest, StartResponse } from '../../shared/wire/schemas.js';
import type { AuditFields } from '../audit-events.js';
import type { Audit } from '../audit.js';
import type { Installs } from '../install/installs.js';
import type { Metrics } from '../metrics.js';
import type { Device } from '../inventory/device.js';
import type { Inventory } from '../inventory/inventory.js';
import type { LocalStore } from '../state/local-store.js';
import { DEFAULT_BOOT_POLICY, type BootPolicy } from './boot-policy.js';
import { admit, provesOwnTpm, refuseBoot, type Admission, type AdmissionWrite } from './admission.js';
import { startSession } from './challenge.js';
import { checkQuotedBoot, checkSecrets, type Evidence } from './evidence.js';
import { Refusal } from './refusal.js';
import { RefusalAudit } from './refusal-audit.js';
import { seenPort } from './seen-port.js';
import { SessionStore, type Session } from './session-store.js';
import { noteKey } from '../reconcile/notes.js';
import { NO_RUNS, type Runs } from '../reconcile/open-run.js';

export interface AttestationServiceOptions {
  inventory: Inventory;
  store: LocalStore;
  audit: Audit;
  installs: Installs;
  metrics: Metrics;
  sessions?: SessionStore;
  /** Whether a device's run is under way (Tinkerbell's Workflows); without, no run is. */
  runs?: Runs;
  /** Start a planned worker's provision when it first attests (the lab's intake). */
  autoProvision?: boolean;
  /** Called when an attestation asked for a run (the reconciler starts it without waiting for its interval). */
  onRunWanted?: () => void;
  now?: () => Date;
}

type VerdictFields = AuditFields<'attest.verdict'>;

/** Who asked: for the audit lines. */
export interface RequestContext {
  peer: string;
  requestId: string;
}

/**
 * The attestation service: `start` issues the challenges, `finish` checks the evidence, admits
 * (admission.ts, which decides every write, with its data), carries the writes out, and answers a verdict, with an install code
 * when the device's run may start now. Every `finish` leaves one `attest.verdict` audit line, and
 * an admitted one an `attest.install` line.
 *
 * Anyone can claim any serial at `start`, so a refusal writes nothing before the TPM has proven
 * its EKs, and afterwards only on the device whose approved EKs it proved.
 */
export class AttestationService {
  readonly sessions: SessionStore;
  private readonly inventory: Inventory;
  private readonly store: LocalStore;
  private readonly audit: Audit;
  private readonly installs: Installs;
  private readonly metrics: Metrics;
  private readonly runs: Runs;
  private readonly autoProvision: boolean;
  private readonly onRunWanted: () => void;
  private readonly now: () => Date;
  private readonly refusals: RefusalAudit;

  constructor(opts: AttestationServiceOptions) {
    this.inventory = opts.inventory;
    this.store = opts.store;
    this.installs = opts.installs;
    this.metrics = opts.metrics;
    this.audit = opts.audit;
    this.sessions = opts.sessions ?? new SessionStore();
    this.runs = opts.runs ?? NO_RUNS;
    this.autoProvision = opts.autoProvision ?? false;
    this.onRunWanted = opts.onRunWanted ?? (() => undefined);
    this.now = opts.now ?? (() => new Date());
    this.refusals = new RefusalAudit(
      this.audit,
      (v) => this.count(v, undefined),
      undefined,
      undefined,
      () => this.now().getTime(),
    );
  }

  /** Refusals of the claimed keys are answered as a verdict too: the agent prints it and stops. */
  start(req: StartRequest, ctx: RequestContext): StartResponse | FinishResponse {
    try {
      return startSession(this.sessions, req, ctx.peer).response;
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      this.sessions.chargeRefused(ctx.peer);
      this.refusals.refused(ctx.peer, {
        request: ctx.requestId,
        serial: req.serial,
        mac: req.mac,
        peer: ctx.peer,
        verdict: err.code,
        reason: err.message,
        stage: 'start',
      });
      return { verdict: err.code, message: err.message };
    }
  }

  async finish(req: FinishRequest, ctx: RequestContext): Promise<FinishResponse> {
    let session: Session;
    try {
      session = this.sessions.take(req.session);
      this.sessions.checkLive(session);
      checkSecrets(session, req);
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      this.refusals.refused(ctx.peer, { request: ctx.requestId, peer: ctx.peer, session: req.session, verdict: err.code, reason: err.message });
      return { verdict: err.code, message: err.message };
    }
    const line: VerdictFields = {
      request: ctx.requestId,
      serial: session.serial,
      mac: session.mac,
      peer: ctx.peer,
      session: session.id,
      eks: Object.fromEntries(session.eks.map((e) => [e.kind, e.hash])),
    };
    try {
      return await this.judge(session, req, ctx, line);
    } catch (err) {
      // The inventory failed: no verdict, so the agent tries again; the audit says why.
      this.verdict({ ...line, verdict: 'error', reason: errorMessage(err) });
      throw err;
    }
  }

  private async judge(session: Session, req: FinishRequest, ctx: RequestContext, line: VerdictFields): Promise<FinishResponse> {
    const device = await this.inventory.deviceBySerial(session.serial);
    let evidence: Evidence;
    try {
      evidence = checkQuotedBoot(session, req);
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      this.verdict({ ...line, node: device?.hostname, verdict: err.code, reason: err.message });
      await this.carryOut(refuseBoot(device, session.serial, session.eks, { verdict: err.code, message: err.message }).writes);
      return { verdict: err.code, message: err.message };
    }
    const seen = seenPort(evidence.report.lldp);
    const own = provesOwnTpm(device, session.serial, evidence.proven);
    const a = admit({
      serial: session.serial,
      boot: {
        mac: evidence.report.mac,
        bootId: evidence.report.bootId,
        ...evidence.boot,
        at: this.now().toISOString(),
        peer: ctx.peer,
      },
      policy: own ? await this.bootPolicy(device) : DEFAULT_BOOT_POLICY,
      device,
      proven: evidence.proven,
      authorship: own ? await this.inventory.bindingAuthorship(device) : null,
      seen,
      run: own ? await this.runs.open(device) : null,
      autoProvision: this.autoProvision,
    });
    this.verdict({
      ...line,
      node: device?.hostname,
      verdict: a.verdict,
      reason: a.reason,
      refused: a.refused,
      switchPort: seen.port,
      secureBoot: evidence.boot.secureBoot,
      secureBootProblem: evidence.boot.secureBootProblem ?? undefined,
      bootImages: evidence.boot.images,
      notes: evidence.notes.length ? evidence.notes : undefined,
    });
    await this.carryOut(a.writes);
    if (a.verdict !== 'attested') return { verdict: a.verdict, message: wireMessage(a) };
    return this.answerAttested(device!, a, evidence, ctx);
  }

  /** The measured-boot policy of the device's class; a device of no class, or an unknown one, has the default. */
  private async bootPolicy(device: Device): Promise<BootPolicy> {
    if (!device.className) return DEFAULT_BOOT_POLICY;
    return (await this.inventory.classes()).get(device.className)?.boot ?? DEFAULT_BOOT_POLICY;
  }

  /** Every verdict is counted where it is audited: one place, so none is missed. */
  private verdict(fields: VerdictFields & { verdict: string }): void {
    this.count(fields.verdict, typeof fields.node === 'string' ? fields.node : undefined);
    this.audit('attest.verdict', fields);
  }

  /** By node only when an entry names the claimed serial: the label's values are the inventory's, not what a peer sends. */
  private count(verdict: string, node: string | undefined): void {
    this.metrics.verdicts.labels({ verdict, node: node ?? 'unknown' }).inc();
  }

  /** The admission's writes, in order, and nothing else: admission decided each one, with its data. */
  private async carryOut(writes: AdmissionWrite[]): Promise<void> {
    for (const w of writes) {
      if (w.op === 'keepClaim') this.store.recordClaim(w.claim);
      else if (w.op === 'dropClaim') this.store.dropClaim(w.serial);
      else if (w.op === 'recordVerdict') await this.inventory.recordVerdict(w.device, w.verdict);
      else if (w.op === 'recordAttested') await this.inventory.recordAttested(w.device, w.facts);
      else if (w.op === 'journal') await this.inventory.journal(w.device, w.kind, w.message);
      else if (w.op === 'codeRefused') this.store.note(noteKey({ run: w.run, event: 'code-refused' }), this.now().toISOString());
      else await this.inventory.setDesiredAction(w.device, w.action);
    }
  }

  private async answerAttested(device: Device, a: Admission, evidence: Evidence, ctx: RequestContext): Promise<FinishResponse> {
    const install: AuditFields<'attest.install'> = { request: ctx.requestId, node: device.hostname, serial: device.serial };
    if (!a.provision.issue) {
      this.audit('attest.install', { ...install, issued: false, reason: a.provision.reason });
      return { verdict: 'attested', message: 'the TPM proved every EK the entry approves' };
    }
    const p = a.provision;
    const issued = await this.installs.issue(
      device,
      { bootId: evidence.report.bootId, mac: evidence.report.mac, uuid: evidence.report.uuid ?? null },
      { run: p.run, kind: p.kind },
      ctx.requestId,
    );
    if ('refused' in issued) {
      // No code, so nothing is wiped: wipe-disk requires one. A boot of an open run may resume it once this is fixed.
      if (p.run) await this.carryOut([{ to: 'store', op: 'codeRefused', run: p.run }]);
      this.audit('attest.install', { ...install, issued: false, reason: issued.refused });
      return {
        verdict: 'attested',
        message: 'the TPM proved every EK the entry approves; no install code: the run cannot install (read the attest.install audit line)',
      };
    }
    await this.carryOut(p.onIssue);
    this.audit('attest.install', { ...install, bootId: evidence.report.bootId, issued: true, run: p.run ?? undefined, intake: p.intake });
    if (p.intake) this.onRunWanted();
    return { verdict: 'attested', message: 'the TPM proved every EK the entry approves; its run may start', installCode: issued.code };
  }
}

/**
 * What the caller is told: the verdict in plain words, without the node's host name or which EK
 * kinds its entry approves (the caller may be anyone claiming the serial; the audit has it all).
 */
function wireMessage(a: Admission): string {
  switch (a.verdict) {
    case 'pending-approval':
      return 'no EK of this machine is approved yet; approve its EKs';
    case 'ek-hash-mismatch':
      return 'an EK this TPM proved is not the one the entry approves';
    case 'ek-missing':
      return 'this TPM proved no EK of a kind the entry approves';
    case 'ek-binding-unauthored':
      return "the approved EK binding is not the one the trusted writer wrote; read the device's journal";
    default:
      return a.reason;
  }
}

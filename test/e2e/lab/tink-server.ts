/**
 * Tinkerbell's controller and tink server for the e2e lab, on the real CRD API server: the I/O
 * around Tinkerbell's own rendering (test/tinkerbell/render.ts) and the status steps it writes
 * (test/tinkerbell/status.ts). The controller renders each new Workflow, times out a RUNNING one,
 * and finishes a POST one; the server answers the guest's tink-agent (guest/tink-agent.mjs) with
 * the action to run and takes its reports. The agent speaks JSON over HTTP here instead of gRPC;
 * the messages carry the same fields (tink/server/internal/grpc/grpc.go's ActionResponse and
 * ActionStatusRequest).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { CrdServer } from '../../kube/crd-server.js';
import { renderWorkflow } from '../../tinkerbell/render.js';
import {
  actionReported,
  actionServed,
  controllerPost,
  controllerRunning,
  initialStatus,
  renderFailed,
  rendered,
  type Report,
  type WorkflowStatus,
} from '../../tinkerbell/status.js';

interface Workflow {
  metadata: { name: string; namespace: string; resourceVersion: string };
  spec: { templateRef: string; hardwareRef: string };
  status?: WorkflowStatus;
}

const TINK = 'tinkerbell.org/v1alpha1';
/** The agent's states (tink/agent/internal/spec) as the proto's ActionStatusRequest names them in the Workflow. */
const AGENT_STATES: Record<string, Report['state']> = { running: 'RUNNING', success: 'SUCCESS', failure: 'FAILED', timeout: 'TIMEOUT' };

export class TinkServer {
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<void> = Promise.resolve();

  private constructor(
    private readonly kube: CrdServer,
    private readonly ns: string,
    private readonly http: Server,
    readonly port: number,
  ) {}

  static async start(kube: CrdServer, ns: string): Promise<TinkServer> {
    let self: TinkServer | undefined;
    const http = createServer((req, res) => {
      const answer = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      void self!.handle(req).then(
        ([s, b]) => answer(s, b),
        (err: unknown) => answer(500, { message: String(err) }),
      );
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    self = new TinkServer(kube, ns, http, (http.address() as { port: number }).port);
    self.timer = setInterval(() => (self!.pass = self!.pass.then(() => self!.reconcile())), 500);
    return self;
  }

  private async workflows(): Promise<Workflow[]> {
    return (await this.kube.objects('tinkerbell.org', 'v1alpha1', 'workflows', this.ns)) as unknown as Workflow[];
  }

  /**
   * Writes a Workflow's status only over the version it was read at, as Tinkerbell's controller
   * and server update it: false when another wrote first (the controller's pass and an agent's
   * request race), and the caller reads again.
   */
  private write(wf: Workflow, status: WorkflowStatus): Promise<boolean> {
    return this.kube.writeStatusIf(TINK, 'workflows', this.ns, wf.metadata.name, status as unknown as Record<string, unknown>, wf.metadata.resourceVersion);
  }

  /** One controller pass over every Workflow; an API server going away with the test ends it quietly. */
  private async reconcile(): Promise<void> {
    const now = new Date();
    const workflows = await this.workflows().catch(() => []);
    for (const wf of workflows) {
      const status = wf.status ?? initialStatus();
      let next: WorkflowStatus | null = null;
      // A new Workflow is rendered at every pass until it renders, as Tinkerbell's controller
      // requeues one it could not (its Hardware not there yet, say).
      if (!status.state) next = await this.render(wf, status, now);
      else if (status.state === 'RUNNING') next = controllerRunning(status, now);
      else if (status.state === 'POST') next = controllerPost(status);
      // A conflict leaves the Workflow to the next pass, which reads it again.
      if (next && JSON.stringify(next) !== JSON.stringify(status)) await this.write(wf, next).catch(() => false);
    }
  }

  private async render(wf: Workflow, status: WorkflowStatus, now: Date): Promise<WorkflowStatus> {
    const template = await this.kube.get(TINK, 'templates', this.ns, wf.spec.templateRef);
    const hardware = await this.kube.get(TINK, 'hardware', this.ns, wf.spec.hardwareRef);
    if (!template) return renderFailed(status, { ok: false, stage: 'input', error: '', condition: 'template not found' }, now);
    if (!hardware)
      return renderFailed(
        status,
        { ok: false, stage: 'input', error: '', condition: `hardware not found: hardware.tinkerbell.org "${wf.spec.hardwareRef}" not found` },
        now,
      );
    const r = await renderWorkflow({ template: String((template.spec as { data?: string }).data ?? ''), workflow: wf, hardware });
    return r.ok ? rendered(r, now) : renderFailed(status, r, now);
  }

  private async handle(req: IncomingMessage): Promise<[number, unknown]> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, string>;
    if (req.method === 'POST' && req.url === '/v1/action') return this.getAction(body.agentId ?? '');
    if (req.method === 'POST' && req.url === '/v1/report') return this.reportActionStatus(body);
    return [404, { message: 'no such endpoint' }];
  }

  /** Runs a request's read-and-write again while another writer came first (client-go's RetryOnConflict). */
  private async onConflictRetry(request: () => Promise<[number, unknown] | 'conflict'>): Promise<[number, unknown]> {
    for (let i = 0; i < 5; i++) {
      const r = await request();
      if (r !== 'conflict') return r;
    }
    return [409, { message: 'the Workflow kept changing' }];
  }

  /** GetAction: the action this worker runs now (written as currentState), or the server's reason for none. */
  private getAction(agentId: string): Promise<[number, unknown]> {
    if (!agentId) return Promise.resolve([400, { message: 'invalid Agent ID' }]);
    return this.onConflictRetry(() => this.serveAction(agentId));
  }

  private async serveAction(agentId: string): Promise<[number, unknown] | 'conflict'> {
    // As Tinkerbell's server: this worker's Workflows in the API server's order (by name), the first
    // with tasks taken, and one that has ended refuses, whatever comes after it.
    const wf = (await this.workflows()).filter((w) => w.status?.agentID === agentId).find((w) => (w.status!.tasks?.length ?? 0) > 0);
    if (!wf) return [404, { message: 'no Workflows found' }];
    let next: WorkflowStatus;
    try {
      next = actionServed(wf.status!, agentId);
    } catch (err) {
      return [404, { message: (err as Error).message }];
    }
    if (!(await this.write(wf, next))) return 'conflict';
    const cur = next.currentState!;
    const task = next.tasks!.find((t) => t.id === cur.taskID)!;
    const action = task.actions.find((a) => a.id === cur.actionID)!;
    const env = { ...task.environment, ...action.environment };
    return [
      200,
      {
        workflowId: `${wf.metadata.namespace}/${wf.metadata.name}`,
        taskId: task.id,
        agentId,
        actionId: action.id,
        name: action.name,
        image: action.image,
        timeout: action.timeout,
        command: action.command ?? [],
        volumes: [...(task.volumes ?? []), ...(action.volumes ?? [])],
        env: Object.entries(env)
          .map(([k, v]) => `${k}=${v}`)
          .sort(),
        pid: action.namespaces?.pid || action.pid || '',
        network: action.namespaces?.network ?? '',
      },
    ];
  }

  /** ReportActionStatus for the action the Workflow's currentState names. */
  private reportActionStatus(r: Record<string, string>): Promise<[number, unknown]> {
    return this.onConflictRetry(() => this.takeReport(r));
  }

  private async takeReport(r: Record<string, string>): Promise<[number, unknown] | 'conflict'> {
    const name = (r.workflowId ?? '').split('/')[1];
    const wf = (await this.workflows()).find((w) => w.metadata.name === name);
    if (!wf?.status) return [404, { message: 'error getting workflow' }];
    if (wf.status.currentState?.actionID !== r.actionId) return [404, { message: 'action not found' }];
    const state = AGENT_STATES[r.state ?? ''];
    if (!state) return [400, { message: `invalid action state ${r.state}` }];
    const report: Report = {
      state,
      message: r.message ?? '',
      ...(r.executionStart ? { start: new Date(r.executionStart) } : {}),
      ...(r.executionStop ? { stop: new Date(r.executionStop) } : {}),
    };
    if (!(await this.write(wf, actionReported(wf.status, report)))) return 'conflict';
    return [200, {}];
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.pass;
    await new Promise<void>((r) => this.http.close(() => r()));
  }
}

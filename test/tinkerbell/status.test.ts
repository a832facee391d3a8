import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { desiredHardware, desiredWorkflow } from '../../verifier/reconcile/desired.js';
import type { KubeObject } from '../../verifier/reconcile/objects.js';
import { viewWorkflow, type WorkflowView } from '../../verifier/reconcile/workflow-view.js';
import { CrdServer } from '../kube/crd-server.js';
import { device, MAC, NS, TALOS, templateData, URLS } from './fixtures.js';
import { applyMergePatch, mergePatch } from './merge-patch.js';
import { renderBinary, renderWorkflow } from './render.js';
import { actionServed, agentRan, controllerPost, controllerRunning, initialStatus, rendered, renderFailed, type WorkflowStatus } from './status.js';

/**
 * The statuses Tinkerbell writes over a run, through Kubernetes' own CRD server with Tinkerbell's
 * CRDs (strict field validation, the status subresource) the way Tinkerbell writes them: the
 * controller by merge patch, the tink server by update. fleetd's reader then sees each as the
 * right state and current action.
 */
let server: CrdServer;
beforeAll(async () => {
  [server] = await Promise.all([CrdServer.start(), renderBinary()]);
}, 900_000);
afterAll(() => server?.stop());

const WF = 'tinkerbell.org/v1alpha1';
const path = (name: string) => `/apis/${WF}/namespaces/${NS}/workflows/${name}/status?fieldValidation=Strict`;
const T0 = Date.parse('2026-12-01T10:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000);

/** A run: its Workflow created as fleetd creates it, and Tinkerbell's writes to it. */
class Run {
  /** The status as Tinkerbell last made it (Go's view of it). */
  status: WorkflowStatus = initialStatus();
  /** What the server should hold after Tinkerbell's writes: the checks that it refused or pruned nothing. */
  private held: unknown = undefined;
  constructor(readonly name: string) {}

  static async create(unix: number, mapEdit?: (m: Record<string, string>) => void): Promise<{ run: Run; wf: KubeObject }> {
    const wf = desiredWorkflow(device(), TALOS, 'provision', unix, NS, URLS);
    mapEdit?.(wf.spec!.hardwareMap as Record<string, string>);
    await server.create(wf as KubeObject & { metadata: { namespace: string } }, 'workflows');
    return { run: new Run(wf.metadata.name), wf };
  }

  /** The controller: a merge patch from the status it read to the one it made. */
  async controller(next: WorkflowStatus): Promise<WorkflowView> {
    const patch = mergePatch(this.status, next);
    const r = await server.request('PATCH', path(this.name), { status: patch });
    if (r.status !== 200) throw new Error(`controller patch: ${r.status} ${JSON.stringify(r.body)}`);
    this.held = applyMergePatch(this.held, patch);
    return this.took(next);
  }

  /** The tink server: the whole Workflow read, its status replaced, updated. */
  async tinkServer(next: WorkflowStatus): Promise<WorkflowView> {
    const cur = await server.request('GET', `/apis/${WF}/namespaces/${NS}/workflows/${this.name}`);
    const r = await server.request('PUT', path(this.name), { ...cur.body, status: next });
    if (r.status !== 200) throw new Error(`tink server update: ${r.status} ${JSON.stringify(r.body)}`);
    this.held = next;
    return this.took(next);
  }

  /** The Workflow read back: all that was written kept, a JSON null (a zero time) as no field. */
  private async took(next: WorkflowStatus): Promise<WorkflowView> {
    this.status = next;
    const back = (await server.request('GET', `/apis/${WF}/namespaces/${NS}/workflows/${this.name}`)).body as unknown as KubeObject;
    expect(back.status ?? {}).toEqual(JSON.parse(JSON.stringify(this.held ?? {}, (_k, v: unknown) => (v === null ? undefined : v))));
    return viewWorkflow(back);
  }
}

async function renderedRun(unix: number): Promise<Run> {
  const { run, wf } = await Run.create(unix);
  const r = await renderWorkflow({ template: templateData('provision'), workflow: wf, hardware: desiredHardware(device(), NS, true) });
  if (!r.ok) throw new Error(r.error);
  const v = await run.controller(rendered(r, at(0)));
  expect(v).toMatchObject({ state: 'pending', current: null, globalTimeout: 3600 });
  expect(v.actions.map((a) => [a.name, a.state])).toEqual([
    ['wipe-disk', 'pending'],
    ['install', 'pending'],
    ['next-boot', 'pending'],
    ['reboot', 'pending'],
  ]);
  return run;
}

const states = (v: WorkflowView) => v.actions.map((a) => a.state);

describe("Tinkerbell's statuses, written through the real CRD server, as fleetd reads them", () => {
  it('served, running, done, next served, failed: the state and the action the run is at', async () => {
    const run = await renderedRun(1764480000);
    expect(await run.tinkServer(actionServed(run.status, MAC))).toMatchObject({ state: 'pending', current: 'wipe-disk' });
    const wipe = agentRan(run.status, 'SUCCESS', at(10), at(75));
    const running = await run.tinkServer(wipe.running);
    expect(running).toMatchObject({ state: 'running', current: 'wipe-disk' });
    // The agent's RUNNING report has no times yet: the server keeps none.
    expect(running.actions[0]).toMatchObject({ state: 'running', started: null, stopped: null, message: 'running action' });
    const done = await run.tinkServer(wipe.done);
    expect(done).toMatchObject({ state: 'running', current: 'wipe-disk' });
    expect(done.actions[0]).toMatchObject({ state: 'success', started: at(10).getTime(), stopped: at(75).getTime(), message: 'action completed' });
    expect(run.status.tasks![0]!.actions[0]!.executionDuration).toBe('1m5s');
    // The controller's pass sets the global deadline: now + 3600 s + (now − the first action's start).
    await run.controller(controllerRunning(run.status, at(76)));
    expect(run.status.globalExecutionStop).toBe('2026-12-01T11:02:22Z');
    expect(await run.tinkServer(actionServed(run.status, MAC))).toMatchObject({ state: 'running', current: 'install' });
    const install = agentRan(run.status, 'FAILED', at(80), at(95));
    expect(await run.tinkServer(install.running)).toMatchObject({ state: 'running', current: 'install' });
    const failed = await run.tinkServer(install.done);
    expect(failed).toMatchObject({ state: 'failed', current: 'install', endedAt: at(95).getTime() });
    expect(states(failed)).toEqual(['success', 'failed', 'pending', 'pending']);
    // The agent says "action completed" for a failure too; the reason is only in its logs.
    expect(failed.actions[1]!.message).toBe('action completed');
  });

  it("every action succeeds: POST, then the controller's post step makes it SUCCESS", async () => {
    const run = await renderedRun(1764480001);
    let t = 0;
    for (const name of ['wipe-disk', 'install', 'next-boot', 'reboot']) {
      expect(await run.tinkServer(actionServed(run.status, MAC))).toMatchObject({ current: name });
      const ran = agentRan(run.status, 'SUCCESS', at(t + 1), at(t + 30));
      await run.tinkServer(ran.running);
      const v = await run.tinkServer(ran.done);
      t += 30;
      expect(v).toMatchObject({ state: 'running', current: name });
    }
    expect(run.status.state).toBe('POST');
    const v = await run.controller(controllerPost(run.status));
    expect(v).toMatchObject({ state: 'success', current: 'reboot', endedAt: at(120).getTime() });
    expect(states(v)).toEqual(['success', 'success', 'success', 'success']);
  });

  it('an action that times out, and the global timeout while an action runs', async () => {
    const a = await renderedRun(1764480002);
    await a.tinkServer(actionServed(a.status, MAC));
    const wipe = agentRan(a.status, 'TIMEOUT', at(1), at(901));
    await a.tinkServer(wipe.running);
    expect(await a.tinkServer(wipe.done)).toMatchObject({ state: 'timeout', current: 'wipe-disk' });

    const b = await renderedRun(1764480003);
    await b.tinkServer(actionServed(b.status, MAC));
    const first = agentRan(b.status, 'SUCCESS', at(1), at(60));
    await b.tinkServer(first.running);
    await b.tinkServer(first.done);
    await b.controller(controllerRunning(b.status, at(60)));
    await b.tinkServer(actionServed(b.status, MAC));
    await b.tinkServer(agentRan(b.status, 'SUCCESS', at(61), at(62)).running);
    const v = await b.controller(controllerRunning(b.status, at(60 + 3600 + 59 + 1)));
    expect(v).toMatchObject({ state: 'timeout', current: 'install' });
    expect(states(v)).toEqual(['success', 'running', 'pending', 'pending']);
  });

  it("a Template that fails to render: failed rendering and its condition, and no state at all, which fleetd reads as failed, with Tinkerbell's reason", async () => {
    const { run, wf } = await Run.create(1764480004, (m) => delete m.config_url);
    const r = await renderWorkflow({ template: templateData('provision'), workflow: wf, hardware: desiredHardware(device(), NS, true) });
    if (r.ok) throw new Error('rendered');
    const v = await run.controller(renderFailed(run.status, r, at(0)));
    expect(run.status).toMatchObject({
      templateRendering: 'failed',
      conditions: [{ type: 'TemplateRenderedSuccess', status: 'False', reason: 'Error', message: r.condition }],
    });
    expect(run.status.state).toBeUndefined();
    // fleetd reads templateRendering and the condition: the run has ended, and why.
    expect(v).toMatchObject({ state: 'failed', current: null, globalTimeout: null, actions: [], renderError: r.condition });
  });
});

/**
 * The Workflow `status` Tinkerbell writes, step by step, in its own field names (tinkerbell.org
 * v1alpha1 WorkflowStatus as Go's encoding/json marshals it): the controller after rendering
 * (tink/controller/internal/workflow/reconciler.go, convert.go), the tink server as the agent
 * takes and reports actions (tink/server/internal/grpc/grpc.go, with tink/agent/agent.go's
 * reports), the controller's global timeout and post step (reconciler.go, post.go). Pure: each
 * step answers a new status.
 */
import type { RenderFailure, RenderSuccess } from './render.js';

export type TinkState = 'PREPARING' | 'PENDING' | 'RUNNING' | 'POST' | 'SUCCESS' | 'FAILED' | 'TIMEOUT';

export interface TinkAction {
  id: string;
  name?: string;
  image?: string;
  timeout?: number;
  command?: string[];
  volumes?: string[];
  pid?: string;
  namespaces?: { network?: string; pid?: string };
  environment?: Record<string, string>;
  state?: TinkState;
  /** metav1.Time: a zero time marshals as null (the agent's RUNNING report carries zero times). */
  executionStart?: string | null;
  executionStop?: string | null;
  executionDuration?: string;
  message?: string;
}

export interface TinkTask {
  id: string;
  name: string;
  agentID: string;
  actions: TinkAction[];
  volumes?: string[];
  environment?: Record<string, string>;
}

export interface CurrentState {
  agentID?: string;
  taskID?: string;
  actionID?: string;
  state?: TinkState;
  actionName?: string;
  taskName?: string;
}

export interface WorkflowCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  time?: string | null;
}

export interface WorkflowStatus {
  agentID?: string;
  state?: TinkState;
  /** A Go struct without a pointer: always marshalled, even empty. */
  bootOptions: { allowNetboot: { toggledTrue?: boolean; toggledFalse?: boolean }; jobs?: Record<string, unknown> };
  templateRendering?: 'successful' | 'failed';
  globalTimeout?: number;
  globalExecutionStop?: string;
  currentState?: CurrentState;
  tasks?: TinkTask[];
  conditions?: WorkflowCondition[];
}

/** metav1.Time's form: RFC 3339, UTC, whole seconds. */
export const kubeTime = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

const copy = (s: WorkflowStatus): WorkflowStatus => structuredClone(s);

/** A Workflow nobody has reconciled yet: Go's zero WorkflowStatus. */
export function initialStatus(): WorkflowStatus {
  return { bootOptions: { allowNetboot: {} } };
}

/** The condition list with one type set (replaced in place, else appended), as SetCondition does. */
function setCondition(list: WorkflowCondition[] | undefined, c: WorkflowCondition, onlyIfDifferent: boolean): WorkflowCondition[] {
  const out = [...(list ?? [])];
  const i = out.findIndex((x) => x.type === c.type);
  if (i < 0) return [...out, c];
  const o = out[i]!;
  if (onlyIfDifferent && o.status === c.status && o.reason === c.reason && o.message === c.message) return out;
  out[i] = c;
  return out;
}

/**
 * The controller after a render that worked: the whole status replaced by the rendered tasks (all
 * PENDING), the timeout and the first task's worker as agent; then rendering successful, its
 * condition, and PENDING (no boot options: fleet uses none).
 */
export function rendered(r: RenderSuccess, now: Date): WorkflowStatus {
  return {
    agentID: r.agentID,
    state: 'PENDING',
    bootOptions: { allowNetboot: {} },
    templateRendering: 'successful',
    ...(r.globalTimeout ? { globalTimeout: r.globalTimeout } : {}),
    tasks: structuredClone(r.tasks),
    conditions: [{ type: 'TemplateRenderedSuccess', status: 'True', reason: 'Complete', message: 'template rendered successfully', time: kubeTime(now) }],
  };
}

/** The controller after a render that failed: rendering failed and its condition, the state left as it was (empty). */
export function renderFailed(prev: WorkflowStatus, r: RenderFailure, now: Date): WorkflowStatus {
  const s = copy(prev);
  s.templateRendering = 'failed';
  s.conditions = setCondition(
    s.conditions,
    { type: 'TemplateRenderedSuccess', status: 'False', reason: 'Error', message: r.condition, time: kubeTime(now) },
    true,
  );
  return s;
}

/**
 * The tink server answering the agent's GetAction: the action it serves (the first while that is
 * PENDING, the current one again while PENDING or RUNNING, else the one after a SUCCESS) becomes
 * currentState, with that action's state. Throws where the server answers an error instead.
 */
export function actionServed(prev: WorkflowStatus, agentID: string): WorkflowStatus {
  const s = copy(prev);
  if (s.state !== 'PENDING' && s.state !== 'RUNNING') throw new Error('Workflow not in pending or running state');
  const tasks = s.tasks ?? [];
  const first = (t: TinkTask) => t.actions[0]?.state === 'PENDING';
  const task = tasks[0] && first(tasks[0]) ? tasks[0] : tasks.find((t) => t.actions.at(-1)?.state !== 'SUCCESS' && t.actions.length > 0);
  if (!task) throw new Error('no Tasks found');
  if (task.actions.length === 0) throw new Error('no Actions found');
  const cur = s.currentState;
  let action: TinkAction | undefined;
  if (first(task)) action = task.actions[0];
  else if (cur && (cur.state === 'RUNNING' || cur.state === 'PENDING')) action = task.actions.find((a) => a.id === cur.actionID);
  else if (cur?.state === 'SUCCESS') {
    const i = task.actions.findIndex((a) => a.id === cur.actionID);
    if (i === task.actions.length - 1) throw new Error('last Action in task');
    if (i >= 0) action = task.actions[i + 1];
  } else if (cur) throw new Error('current Action not in success state');
  else throw new Error('no current state available');
  if (!action) throw new Error('no Action found');
  if (task.agentID !== agentID) throw new Error('Task not assigned to Agent');
  s.currentState = {
    agentID,
    taskID: task.id,
    actionID: action.id,
    ...(action.state ? { state: action.state } : {}),
    ...(action.name ? { actionName: action.name } : {}),
    taskName: task.name,
  };
  return s;
}

export interface Report {
  state: 'RUNNING' | 'SUCCESS' | 'FAILED' | 'TIMEOUT';
  /** Absent in the agent's RUNNING report: it sets the times only once the action has run. */
  start?: Date;
  stop?: Date;
  message: string;
}

/**
 * The tink server taking the agent's ReportActionStatus for the served action: the action's state,
 * times, duration and message; the Workflow's state follows any report but SUCCESS, and becomes
 * POST after the last action's SUCCESS; currentState follows.
 */
export function actionReported(prev: WorkflowStatus, report: Report): WorkflowStatus {
  const s = copy(prev);
  const cur = s.currentState;
  const tasks = s.tasks ?? [];
  const ti = tasks.findIndex((t) => t.actions.some((a) => a.id === cur?.actionID) && t.agentID === cur?.agentID);
  if (!cur || ti < 0) throw new Error('action not found');
  const task = tasks[ti]!;
  const ai = task.actions.findIndex((a) => a.id === cur.actionID);
  const a = task.actions[ai]!;
  a.state = report.state;
  a.executionStart = report.start ? kubeTime(report.start) : null;
  a.executionStop = report.stop ? kubeTime(report.stop) : null;
  const duration = report.start && report.stop ? humanDuration(report.stop.getTime() - report.start.getTime()) : '';
  if (duration) a.executionDuration = duration;
  else delete a.executionDuration;
  a.message = report.message;
  if (report.state !== 'SUCCESS') s.state = report.state;
  if (ti === tasks.length - 1 && ai === task.actions.length - 1 && report.state === 'SUCCESS') s.state = 'POST';
  s.currentState = {
    ...(cur.agentID ? { agentID: cur.agentID } : {}),
    taskID: task.id,
    actionID: a.id,
    state: a.state,
    ...(a.name ? { actionName: a.name } : {}),
    taskName: task.name,
  };
  return s;
}

/** The agent's two reports of one action: "running action" first, then "action completed" with its times. */
export function agentRan(
  prev: WorkflowStatus,
  outcome: 'SUCCESS' | 'FAILED' | 'TIMEOUT',
  start: Date,
  stop: Date,
): { running: WorkflowStatus; done: WorkflowStatus } {
  const running = actionReported(prev, { state: 'RUNNING', message: 'running action' });
  return { running, done: actionReported(running, { state: outcome, start, stop, message: 'action completed' }) };
}

/**
 * The controller's pass over a RUNNING Workflow: TIMEOUT once past globalExecutionStop; else, the
 * first time it sees the first action started while currentState is still that action, the stop
 * is set to now + globalTimeout (+ the skew since that start).
 */
export function controllerRunning(prev: WorkflowStatus, now: Date): WorkflowStatus {
  const s = copy(prev);
  if (s.state !== 'RUNNING') return s;
  if (s.globalExecutionStop && now.getTime() > Date.parse(s.globalExecutionStop)) {
    s.state = 'TIMEOUT';
    return s;
  }
  const first = s.tasks?.[0]?.actions[0];
  if (!s.globalExecutionStop && first && s.currentState?.actionID === first.id && first.executionStart) {
    const skew = Math.max(0, now.getTime() - Date.parse(first.executionStart));
    s.globalExecutionStop = kubeTime(new Date(now.getTime() + (s.globalTimeout ?? 0) * 1000 + skew));
  }
  return s;
}

/** The controller's post step (no boot options): the Workflow takes the last action's state. */
export function controllerPost(prev: WorkflowStatus): WorkflowStatus {
  const s = copy(prev);
  if (s.state === 'POST' && s.currentState?.state) s.state = s.currentState.state;
  return s;
}

/** The agent's duration text: the two largest non-zero units, e.g. 1m30s, 2s500ms. */
function humanDuration(ms: number): string {
  const ns = BigInt(Math.round(ms * 1e6));
  const units: Array<[string, bigint]> = [
    ['h', 3_600_000_000_000n],
    ['m', 60_000_000_000n],
    ['s', 1_000_000_000n],
    ['ms', 1_000_000n],
    ['us', 1_000n],
    ['ns', 1n],
  ];
  const parts: string[] = [];
  let rest = ns < 0n ? 0n : ns;
  for (const [u, size] of units) {
    const n = rest / size;
    rest %= size;
    if (n > 0n && parts.length < 2) parts.push(`${n}${u}`);
  }
  return parts.join('');
}

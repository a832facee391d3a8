import { LABELS } from '../labels.js';
import type { KubeObject } from './objects.js';

export type RunState = 'pending' | 'running' | 'success' | 'failed' | 'timeout';

export interface ActionView {
  name: string;
  state: RunState;
  started: number | null;
  stopped: number | null;
  message: string;
}

/** A Workflow as the reconciler reasons about it, whichever Tinkerbell wrote its status. */
export interface WorkflowView {
  name: string;
  device: string;
  kind: 'provision' | 'retire' | 'other';
  state: RunState;
  created: number;
  /** Seconds; null when the status does not say yet (before the template is rendered). */
  globalTimeout: number | null;
  actions: ActionView[];
  /**
   * Whether the machine took the run: an action started or left PENDING. Tinkerbell's agent
   * reports an action RUNNING without a start time (the times come with its result), so a start
   * time alone would miss a first action that is running.
   */
  begun: boolean;
  /**
   * Tinkerbell's reason it could not render the Template (its TemplateRenderedSuccess condition):
   * such a run has no actions and no state, and never will; it reads as failed.
   */
  renderError: string | null;
  /** The action the run was at: the one running, failed or timed out, else the last started. */
  current: string | null;
  endedAt: number | null;
}

/**
 * Old tink writes STATE_SUCCESS, an action's `status`, `startedAt` and `seconds`; the current
 * tinkerbell writes SUCCESS, `state`, `executionStart` and `executionStop`. Both read the same here.
 */
export function runState(raw: unknown): RunState {
  const s = typeof raw === 'string' ? raw.replace(/^STATE_/, '').toUpperCase() : '';
  if (s === 'SUCCESS') return 'success';
  if (s === 'FAILED') return 'failed';
  if (s === 'TIMEOUT') return 'timeout';
  if (s === 'RUNNING' || s === 'POST') return 'running';
  // WAITING, PREPARING, PENDING, or nothing yet; anything unknown counts as not finished.
  return s === '' || s === 'WAITING' || s === 'PREPARING' || s === 'PENDING' ? 'pending' : 'running';
}

const time = (v: unknown): number | null => {
  if (typeof v !== 'string') return null;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : t;
};

export function isFinished(state: RunState): boolean {
  return state === 'success' || state === 'failed' || state === 'timeout';
}

/** The objects of a status list; anything else in it (null, a bare value) says nothing. */
export const objectsOf = (list: unknown): Array<Record<string, unknown>> =>
  Array.isArray(list) ? list.filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null) : [];

export function viewWorkflow(wf: KubeObject): WorkflowView {
  const status = (wf.status ?? {}) as Record<string, unknown>;
  const tasks = objectsOf(status.tasks);
  const actions: ActionView[] = tasks.flatMap((t) =>
    objectsOf(t.actions).map((a) => {
      const started = time(a.executionStart) ?? time(a.startedAt);
      const seconds = typeof a.seconds === 'number' ? a.seconds : null;
      return {
        name: typeof a.name === 'string' ? a.name : '',
        state: runState(a.state ?? a.status),
        started,
        stopped: time(a.executionStop) ?? (started !== null && seconds !== null ? started + seconds * 1000 : null),
        message: typeof a.message === 'string' ? a.message : '',
      };
    }),
  );
  const currentState = status.currentState as { actionName?: unknown } | undefined;
  const named =
    typeof currentState?.actionName === 'string' && currentState.actionName
      ? currentState.actionName
      : typeof status.currentAction === 'string'
        ? status.currentAction
        : null;
  const active = actions.find((a) => a.state === 'running' || a.state === 'failed' || a.state === 'timeout');
  const lastStarted = [...actions].reverse().find((a) => a.started !== null);
  const stops = actions.map((a) => a.stopped).filter((t): t is number => t !== null);
  const kindLabel = wf.metadata.labels?.[LABELS.run];
  const rendering = objectsOf(status.conditions).find((c) => c.type === 'TemplateRenderedSuccess');
  const renderError =
    status.templateRendering === 'failed' || rendering?.status === 'False'
      ? typeof rendering?.message === 'string' && rendering.message
        ? rendering.message
        : 'no message'
      : null;
  return {
    name: wf.metadata.name,
    device: wf.metadata.labels?.[LABELS.device] ?? (typeof wf.spec?.hardwareRef === 'string' ? wf.spec.hardwareRef : ''),
    kind: kindLabel === 'provision' || kindLabel === 'retire' ? kindLabel : 'other',
    state: renderError !== null ? 'failed' : runState(status.state),
    created: time(wf.metadata.creationTimestamp) ?? 0,
    globalTimeout: typeof status.globalTimeout === 'number' && status.globalTimeout > 0 ? status.globalTimeout : null,
    actions,
    renderError,
    begun: actions.some((a) => a.started !== null || a.state !== 'pending'),
    current: named ?? active?.name ?? lastStarted?.name ?? null,
    endedAt: stops.length ? Math.max(...stops) : null,
  };
}

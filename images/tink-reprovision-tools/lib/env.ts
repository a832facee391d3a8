import { ACTIONS, type ActionName } from '../actions.js';

export type ActionEnv<A extends ActionName> = Record<(typeof ACTIONS)[A][number], string>;

/**
 * The variables the catalogue gives the action, trimmed, and nothing else. A key missing from a
 * Workflow's hardwareMap renders as Go's "<no value>": that is no value here either.
 */
export function readEnv<A extends ActionName>(action: A, env: NodeJS.ProcessEnv): ActionEnv<A> {
  const out: Record<string, string> = {};
  for (const key of ACTIONS[action]) {
    const v = (env[key] ?? '').trim();
    out[key] = v === '<no value>' ? '' : v;
  }
  return out as ActionEnv<A>;
}

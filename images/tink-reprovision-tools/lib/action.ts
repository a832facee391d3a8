import { errorMessage } from '../../../shared/errors.js';
import type { ActionName } from '../actions.js';
import { readEnv, type ActionEnv } from './env.js';
import { machineIO, type ActionIO } from './io.js';
import { printed } from '../lines/printed.js';
import { SHARED_LINES } from '../lines/shared.js';
import { Advised, Refusal } from './refusal.js';

/** An action: its environment, the world it touches, and `say` for its lines (prefixed for it). */
export type Action<A extends ActionName> = (env: ActionEnv<A>, io: ActionIO, say: (text: string) => void) => Promise<void>;

/**
 * Runs an action to its exit code: 0 when it did its work or had none to do, 1 when it refused or
 * failed (its last line says which; an `Advised` failure adds the fix after it).
 */
export async function perform<A extends ActionName>(name: A, action: Action<A>, env: NodeJS.ProcessEnv, io: ActionIO): Promise<number> {
  const say = (text: string) => io.say(printed(name, text));
  try {
    await action(readEnv(name, env), io, say);
    return 0;
  } catch (err) {
    const failure = err instanceof Advised ? err.failure : err;
    say(failure instanceof Refusal ? failure.message : SHARED_LINES.failed(errorMessage(failure)));
    if (err instanceof Advised) say(err.advice);
    return 1;
  }
}

/** The bundle's entry: the machine's world, the process's environment. */
export async function main<A extends ActionName>(name: A, action: Action<A>): Promise<void> {
  process.exitCode = await perform(name, action, process.env, machineIO());
}

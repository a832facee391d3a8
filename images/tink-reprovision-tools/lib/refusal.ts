import { errorMessage, FleetError } from '../../../shared/errors.js';

/**
 * An action that will not go on: its message is the line the action prints (after its name), and
 * the action exits non-zero. A refusal that ends "nothing wiped" or "nothing written" comes before
 * the action's first write; other failures are plain errors ("failed: …").
 */
export class Refusal extends FleetError {
  constructor(message: string) {
    super('action-refused', message);
    this.name = 'Refusal';
  }
}

/**
 * A failure with what to do about it: the action prints the failure's own line (a refusal's, or
 * "failed: …"), then `advice`, the runbook's fix, as a line of its own.
 */
export class Advised extends Error {
  constructor(
    readonly failure: unknown,
    readonly advice: string,
  ) {
    super(errorMessage(failure), { cause: failure });
    this.name = 'Advised';
  }
}

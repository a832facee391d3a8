import { FleetError } from '../../../shared/errors.js';

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

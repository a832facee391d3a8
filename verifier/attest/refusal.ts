import { FleetError } from '../../shared/errors.js';
import type { ProtocolVerdict } from '../../shared/wire/verdicts.js';

/** The evidence does not hold: `code` is the protocol verdict the agent and the audit line get. */
export class Refusal extends FleetError {
  declare readonly code: ProtocolVerdict;
  constructor(code: ProtocolVerdict, message: string) {
    super(code, message);
    this.name = 'Refusal';
  }
}

/** The lines the inventory itself journals on a device (journal-line.ts). */
import { line } from '../journal-line.js';

export const INVENTORY_LINES = {
  desiredActionSet: line({
    kind: 'info',
    when: 'the owner set desired_action with fleet inventory action (the embedded inventory; NetBox keeps its own changelog)',
    args: ['action'],
    text: (action) => `desired_action set to ${action} by fleet inventory action`,
  }),
  macElsewhere: line({
    kind: 'warning',
    when: 'NetBox holds the attested MAC on another object, which fleet does not move',
    args: ['MAC', 'object'],
    text: (mac, object) => `the attested MAC ${mac} is assigned to ${object} in NetBox; fleet left it there`,
  }),
};

import type { ActionName } from '../actions.js';
import { recordPrinted } from '../../../shared/text/printed-record.js';

/** The word each action's lines start with (the runbook's `wipe: …`, `install: …`). */
export const ACTION_WORD: Record<ActionName, string> = {
  'wipe-disk': 'wipe',
  install: 'install',
  'image-to-disk': 'image-to-disk',
  'next-boot': 'next-boot',
  reboot: 'reboot',
};

/** A line as the action prints it on stdout: its word, then the line. */
export const printed = (action: ActionName, line: string): string => {
  const text = `${ACTION_WORD[action]}: ${line}`;
  recordPrinted(text);
  return text;
};

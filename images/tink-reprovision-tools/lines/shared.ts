/**
 * Lines more than one action says (lines/disk.ts has the disk's), and the pieces of other lines:
 * what a refusal leaves undone, and why a fetch or a tool failed.
 */
import { said } from '../../../shared/text/line-def.js';

/** What a refusal of each action leaves undone: the end of its refusal lines. */
export const NOTHING = {
  'wipe-disk': 'nothing wiped',
  install: 'nothing installed',
  'image-to-disk': 'nothing written',
  'next-boot': 'no boot entry changed',
} as const;
export type Nothing = (typeof NOTHING)[keyof typeof NOTHING];

/** How a line names the install code where it would show: the code itself is never printed. */
export const CODE_BLANK = '<install code>';

export const SHARED_LINES = {
  noInstallDisk: said({ when: 'refuses: INSTALL_DISK is empty', args: [], text: () => 'no install disk is declared' }),
  noInstallCode: said({ when: "refuses: this boot's attestation answered no install code", args: [], text: () => 'no install code' }),
  resumed: said({
    when: 'refuses: the run resumed in a boot after the one wipe-disk wiped in (a power loss); a resumed run never writes to a disk it did not wipe',
    args: ['nothing'],
    text: (nothing) => `this run resumed in a new boot after wipe-disk; ${nothing}; set desired_action to provision`,
  }),
  notWiped: said({
    when: 'refuses: INSTALL_DISK is not the disk wipe-disk wiped in this boot',
    args: ['INSTALL_DISK', 'wiped disk', 'nothing'],
    text: (disk, wiped, nothing) => `${disk} is not ${wiped}, the disk wipe-disk wiped; ${nothing}`,
  }),
  failed: said({
    when: 'an error that is no refusal: one of the failures listed with each action, or any other',
    args: ['message'],
    text: (message) => `failed: ${message}`,
  }),
};

/** Why a fetch or a tool failed: the `<why>` in the lines that name one. */
export const WHY = {
  http: said({ when: 'the server answered with an error status', args: ['status'], text: (status) => `HTTP ${status}` }),
  socket: said({ when: "the connection failed: the socket error's code (ECONNREFUSED, ENOTFOUND, …)", args: ['code'], text: (code) => code }),
  stalled: said({ when: 'the server sent nothing for that long', args: ['seconds'], text: (s) => `no answer for ${s} s` }),
  redirects: said({ when: 'the URL redirected too often', args: ['hops'], text: (hops) => `more than ${hops} redirects` }),
  notHttp: said({ when: 'the URL is neither http: nor https:', args: ['scheme'], text: (scheme) => `${scheme} is no HTTP URL scheme` }),
  closedEarly: said({
    when: 'the connection closed before the announced length',
    args: ['bytes', 'length'],
    text: (bytes, length) => `the connection closed after ${bytes} of ${length} bytes`,
  }),
  exitCode: said({ when: 'a tool failed and printed nothing', args: ['code'], text: (code) => `exit code ${code}` }),
};

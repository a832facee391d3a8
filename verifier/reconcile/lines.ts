/**
 * Every line the reconciler journals on a device (journal-line.ts). plan.ts says them through
 * these; what was said is kept as a note (notes.ts), so each is said once per event.
 */
import { line as def } from '../journal-line.js';

/** How a run reaches its machine, as the start line says it. */
export const HOW = {
  hookos: ', with the note that the machine attested from HookOS',
  bmc: '; Rufio power-cycles it into a one-time PXE boot',
  manual: '; it has no BMC fleetd drives: power it on by hand so that it netboots',
} as const;

export const LINES = {
  lacks: def({
    kind: 'warning',
    when: "a run is wanted but could not finish, or reach its machine: it waits, and nothing is created or wiped. What it may lack: a MAC (it has not attested), install_disk, install_disk_serial, switch_port, class, the class's definition, the Template in Tinkerbell, a config URL (fleet serve --config-url), a seed URL (--seed-url), its class inputs (why), a quotable parameter (one holding a double quote, a backslash, a control character, a line separator, a bidi control or a zero-width character, which the Template's quotes cannot hold or a reader cannot see)",
    args: ['node', 'what it lacks', 'what the run waits for'],
    text: (node, lacks, waits) => `${node} lacks ${lacks}; the run waits for ${waits}`,
  }),
  noRecordedPort: def({
    kind: 'warning',
    when: "a run is wanted, and the device's last attestation recorded no switch port: it waits",
    args: ['node'],
    text: (node) => `${node} recorded no attested switch port: its last attestation came with no LLDP frame`,
  }),
  started: def({
    kind: 'info',
    when: 'a run started, or a restart adopted one it had not said',
    args: ['node', 'run', 'how'],
    text: (node, run, how) => `${node}: started Workflow ${run}${how}`,
  }),
  abandoned: def({
    kind: 'warning',
    when: 'a run reported no first action within its global timeout (Tinkerbell sets such a run no deadline)',
    args: ['node', 'run', 'seconds'],
    text: (node, run, seconds) =>
      `${node}: Workflow ${run} never reported its first action within its global timeout (${seconds} s); fleetd deleted it, and no later boot resumes it. The disk may be partly wiped or may still hold the old install; set desired_action to provision`,
  }),
  waitsForRun: def({
    kind: 'info',
    when: 'desired_action asks for another kind of run than the one under way',
    args: ['node', 'action', 'run'],
    text: (node, action, run) => `${node}: desired_action ${action} waits for Workflow ${run} to end`,
  }),
  alreadyUnderWay: def({
    kind: 'info',
    when: 'desired_action asks for the kind of run already under way: cleared, so that run is not followed by a second',
    args: ['node', 'action', 'run'],
    text: (node, action, run) =>
      `${node}: desired_action ${action} is already under way as Workflow ${run}; cleared, so nothing is wiped twice. Set it again once that run has ended to run it again`,
  }),
  bmcNotDriven: def({
    kind: 'warning',
    when: "the device's bmc_type is not one fleetd drives",
    args: ['node', 'bmc_type'],
    text: (node, bmcType) => `${node}: bmc_type ${bmcType} is not one fleetd drives (amt); no Machine`,
  }),
  jobFailed: def({
    kind: 'warning',
    when: "Rufio's power cycle failed",
    args: ['node', 'run', "Rufio's message", 'address'],
    text: (node, run, message, address) =>
      `${node}: Rufio's Job ${run} failed to power the machine (${message}): AMT does not answer at ${address}. Set AMT's address, or power the machine on by hand`,
  }),
  jobAgain: def({
    kind: 'info',
    when: "AMT's address changed after Rufio's power cycle failed: fleetd power-cycles the machine again",
    args: ['node', 'run', 'address', 'old address'],
    text: (node, run, address, old) => `${node}: AMT's address is now ${address} (was ${old}); fleetd power-cycles the machine again for Workflow ${run}`,
  }),
  hookosAfterSuccess: def({
    kind: 'warning',
    when: 'the node netbooted HookOS and attested after its install succeeded',
    args: ['node', 'run'],
    text: (node, run) =>
      `${node}: the node booted HookOS and attested after Workflow ${run} succeeded, instead of booting its disk; its config stays unread. Fix its boot order so the disk comes before PXE, then set desired_action to provision`,
  }),
  succeeded: def({ kind: 'success', when: 'a provision succeeded', args: ['node', 'run'], text: (node, run) => `${node}: Workflow ${run} succeeded` }),
  retired: def({
    kind: 'success',
    when: 'a retirement succeeded, and the BMC reports the machine off',
    args: ['node', 'run'],
    text: (node, run) => `${node} is retired: Workflow ${run} wiped its disk, and its BMC reports it off`,
  }),
  retirementContradicted: def({
    kind: 'danger',
    when: 'a retirement reported success, and the BMC still reports power on (or nothing) after the corroboration window',
    args: ['node', 'run', 'power'],
    text: (node, run, power) =>
      `${node}: Workflow ${run} reported success, but its BMC reports power ${power}: the disk may not be wiped, so the node may still hold its data and its identity; the device stays decommissioning`,
  }),
  timedOutInstalled: def({
    kind: 'info',
    when: 'a run passed its global timeout while install, next-boot or reboot was current, and the node is active',
    args: ['node', 'run', 'action'],
    text: (node, run, action) => `${node}: Workflow ${run} passed its global timeout while ${action} was current; the node is active, so it has its install`,
  }),
  renderFailed: def({
    kind: 'warning',
    when: "Tinkerbell could not render a run's Template (a retirement: danger)",
    args: ['node', 'run', "Tinkerbell's condition", 'what now'],
    text: (node, run, condition, now) => `${node}: Tinkerbell could not render the Template of Workflow ${run} (${condition}), so no action ran. ${now}`,
  }),
  ended: def({
    kind: 'warning',
    when: 'a run ended FAILED or TIMEOUT (a retirement: danger)',
    args: ['node', 'run', 'STATE', 'action', "the action's message", 'where to read', 'what now'],
    text: (node, run, state, action, message, read, now) => `${node}: Workflow ${run} ended ${state} at ${action} (${message})${read}. ${now}`,
  }),
  foreignObject: def({
    kind: 'warning',
    when: "an object by the device's name exists that fleetd does not own",
    args: ['node', 'kind', 'name'],
    text: (node, kind, name) => `${node}: a ${kind} ${name} that fleetd does not own exists; fleetd leaves it alone`,
  }),
};

/** What the operator does after a run that ended badly: a provision's, and a retirement's (whose disk may not be wiped). */
export const AFTER_FAILURE = {
  provision: 'Fix the cause, then set desired_action to provision',
  /** Its boot was refused its code (the journal says why), so wipe-disk wiped nothing. */
  codeRefused:
    'Its boot got no install code, so nothing was wiped: fix what the journal names, then power-cycle the machine; its next boot that gets a code starts the run again',
  retire: 'The disk may not be wiped, so the node may still hold its data and its identity; the device stays decommissioning',
} as const;

/** The hint an ended run's line gives: where HookOS's lines of that boot are. */
export const readHookosJournal = (address: string) => `; read journalctl -t hookos HOOKOS_HOST=${address} on spore for the action's last lines`;

import { ATTEST_LINES } from '../../agent/attest/lines.js';
import { BOOT_FACT_LINES, CMDLINE_LINES, NIC_LINES, NO_ATTEMPT, SECURITYFS_LINES, SECURITYFS_WHY } from '../../agent/boot/lines.js';
import { CLOCK_LINES, CLOCK_WHY } from '../../agent/clock/lines.js';
import { LLDP_LINES, LLDP_WHY } from '../../agent/lldp/lines.js';
import { type Said, template } from '../../shared/text/line-def.js';
import { cell, type DocPage } from './page.js';

type Line = Said<string[]>;
const all = (lines: Record<string, unknown>): Line[] => Object.values(lines) as Line[];

/** One step of the agent's boot, in the order it runs: what it does, and what it may print. */
export interface ConsoleStep {
  title: string;
  does: string;
  lines: Line[];
  /** The forms the `<arg>` of one of its lines takes in the agent's own words, besides those `besides` names. */
  why?: { line: Line; arg: number; forms: Line[]; besides?: string };
}

/** `edge`'s steps (agent/edge/run-edge.ts); the bare `attest` runs the attestation's alone. */
export const CONSOLE_STEPS: readonly ConsoleStep[] = [
  {
    title: "An earlier boot's code",
    does: 'Removes any install code and attestation marker an earlier boot left in `/worker/fleet`. It says nothing.',
    lines: [],
  },
  {
    title: 'The kernel command line',
    does: 'Reads `/proc/cmdline`: one line for each parameter missing or malformed.',
    lines: all(CMDLINE_LINES),
  },
  {
    title: 'The clock',
    does: "Sets the clock by SNTP from `fleet_ntp_server` (RFC 4330 client; a random transmit timestamp the answer must echo; mode, version, stratum, leap and kiss-o'-death checked; a time before 2025 or after 2099 refused; 3 tries of 1 s; left alone within 0.5 s; set with `date -u -s @SECONDS`). It runs alongside the TPM's work; its line comes before the verdict.",
    lines: all(CLOCK_LINES),
    why: { line: CLOCK_LINES.kept, arg: 1, forms: all(CLOCK_WHY), besides: "the SNTP client's own refusal: no answer, or one it does not believe" },
  },
  {
    title: 'securityfs',
    does: 'Mounts securityfs on `/sys/kernel/security`, where the firmware event log is, unless `/proc/mounts` lists it.',
    lines: all(SECURITYFS_LINES),
    why: { line: SECURITYFS_LINES.failed, arg: 0, forms: all(SECURITYFS_WHY) },
  },
  {
    title: 'The boot NIC',
    does: "Picks the boot NIC: BOOTIF's MAC, else ip='s device, else the default route's NIC, else the only physical NIC with a link. Refusing to guess, it ends with `attest: no verdict: <why>` (the attestation's step).",
    lines: all(NIC_LINES),
  },
  {
    title: "The boot's facts",
    does: "Reads the SMBIOS serial and system UUID, the boot id and the firmware's event log.",
    lines: all(BOOT_FACT_LINES),
  },
  {
    title: "The switch's LLDP frame",
    does: "Captures the switch's LLDP frame on the boot NIC for up to 35 s, started once the first TPM command is out, so it runs alongside the key creation and the first round trip.",
    lines: all(LLDP_LINES),
    why: { line: LLDP_LINES.none, arg: 1, forms: all(LLDP_WHY), besides: "the capture's own reason: libpcap missing, the NIC refused" },
  },
  {
    title: 'The attestation',
    does: 'Attests: 5 tries, 30 s apart.',
    lines: [ATTEST_LINES.tryFailed, ATTEST_LINES.passed, ATTEST_LINES.codeWritten, ATTEST_LINES.failed, ATTEST_LINES.noVerdictAfter, ATTEST_LINES.noVerdict],
    why: { line: ATTEST_LINES.noVerdict, arg: 0, forms: all(NO_ATTEMPT), besides: 'the message of a fact or a TPM that cannot be read' },
  },
  {
    title: "The agent's own failure",
    does: 'At any step, the agent itself may fail (`agent/entry.ts`).',
    lines: [ATTEST_LINES.agentError, ATTEST_LINES.noCommand],
  },
];

const code = (s: string) => `\`${cell(s)}\``;

function section(step: ConsoleStep, n: number): string[] {
  const out = [`## ${n}. ${step.title}`, '', step.does, ''];
  if (step.lines.length > 0) out.push('| when | line |', '|---|---|', ...step.lines.map(({ def }) => `| ${cell(def.when)} | ${code(template(def))} |`), '');
  if (step.why) {
    const { line, arg, besides } = step.why;
    out.push(`The \`<${line.def.args[arg]}>\` of ${code(template(line.def))}${besides ? ` (besides ${besides})` : ''}:`, '', '| when | words |', '|---|---|');
    out.push(...step.why.forms.map(({ def }) => `| ${cell(def.when)} | ${code(template(def))} |`), '');
  }
  return out;
}

/** docs/reference/console-lines.md: every line the agent prints on HookOS's console, step by step. */
export const consoleLinesPage: DocPage = {
  path: 'docs/reference/console-lines.md',
  render() {
    return [
      '<!-- Generated from agent/*/lines.ts by npm run docs: edit the lines, not this page. -->',
      "# The agent's console lines",
      '',
      'What the agent prints as `dist/agent.mjs edge` runs on every netboot (`agent/edge/`), in order:',
      "each line goes to stdout (the container's log) and to `/dev/console`. The bare `attest` prints",
      "the attestation's lines alone. Each line is defined once, beside the code that says it",
      '(`agent/*/lines.ts`); `attest: PASSED` and `attest: FAILED <verdict>: <message>` are what the',
      'runbook reads.',
      '',
      ...CONSOLE_STEPS.flatMap((step, i) => section(step, i + 1)),
    ].join('\n');
  },
};

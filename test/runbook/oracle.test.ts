/**
 * The runbook is the oracle: every phrase a symptom of "If something goes wrong" quotes, and every
 * line a `Result:` names, must be among the lines fleet's code said while the unit suite ran
 * (test/runbook/printed-record.ts), verbatim but for its placeholders. The expectation is the
 * runbook's text, never fleet's definitions: a reworded line, or a runbook row no test reaches,
 * fails here. Run after the unit suite (`npm test` does); alone it has no record to read.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PRINTED_RECORD } from './printed-record.js';
import { codeSpans, failureTable, phrasePattern, results, RUNBOOK } from './runbook.js';

/** What the table quotes that is no line of fleet's: a name, a state, or another program's words. */
const NOT_PRINTED: Record<string, string> = {
  Workflow: "a Tinkerbell kind's name",
  desired_action: "a NetBox field's name",
  FAILED: "a Workflow's state",
  'wipe-disk': "a Template action's name",
  active: "a device's status",
  install: "a Template action's name",
  'next-boot': "a Template action's name",
  reboot: "a Template action's name",
  success: "a journal line's kind",
  Node: "a Kubernetes kind's name",
  'error executing action All attempts fail: #1: docker:': "tink-agent's own log line (Tinkerbell's, when it cannot pull an action's image)",
  'talosctl --nodes <addr> logs kubelet': 'a command the operator runs',
  Unauthorized: "the kubelet's own words (Kubernetes')",
};

/** Alerts are the rules file's, which Prometheus reads as shipped. */
const ALERTS = readFileSync(new URL('../../deploy/prometheus/fleet-alerts.yaml', import.meta.url), 'utf8');
const isAlert = (phrase: string) => /^[A-Z][A-Za-z]+$/.test(phrase) && new RegExp(`^\\s*- alert: ${phrase}$`, 'm').test(ALERTS);

/** The lines each `Result:` names, as its words give them (the rest of a result is a state, not a line). */
const RESULT_LINES: Record<number, string[]> = {
  40: ['attest: PASSED'],
  43: ['started Workflow provision-<node>-<unix seconds>, with the note that the machine attested from HookOS'],
  83: ['attest: PASSED', 'install code written', 'wipe: <disk> reports the serial <disk serial>', 'install: installed Talos to <disk>'],
  99: ['approved_ek_rsa2048: <hash>', 'approved_ek_eccp256: <hash>'],
  106: ['attest: PASSED'],
};

const said: string[] = existsSync(PRINTED_RECORD)
  ? [
      ...new Set(
        readFileSync(PRINTED_RECORD, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as string),
      ),
    ]
  : [];
const wasSaid = (phrase: string) => {
  const pattern = phrasePattern(phrase);
  return said.some((l) => pattern.test(l));
};

const rows = failureTable();
const quoted = rows.flatMap((r) => codeSpans(r.symptom).map((phrase) => ({ at: r.at, phrase })));

describe("the runbook's failure table", () => {
  it('is read: its rows, and the phrases their symptoms quote', () => {
    expect(rows.length).toBeGreaterThanOrEqual(30);
    expect(quoted.length).toBeGreaterThanOrEqual(50);
    expect(said.length, `no record of what the code said at ${PRINTED_RECORD}: run the unit suite first (npm test)`).toBeGreaterThan(1000);
  });

  it('quotes every name it is excused for, so the list holds no stale entry', () => {
    for (const name of Object.keys(NOT_PRINTED)) expect(quoted.map((q) => q.phrase)).toContain(name);
  });

  it.each(quoted.filter((q) => !(q.phrase in NOT_PRINTED)).map((q) => [q.at, q.phrase] as const))(
    'row at line %i: `%s` is what the code said in a test, or a shipped alert',
    (_at, phrase) => {
      expect(wasSaid(phrase) || isAlert(phrase), `no test made fleet say "${phrase}", and it is no alert in deploy/prometheus/fleet-alerts.yaml`).toBe(true);
    },
  );
});

describe("the runbook's results", () => {
  const all = results();

  it('are read, and each named here is the runbook’s', () => {
    expect(all.length).toBeGreaterThanOrEqual(10);
    for (const [at, lines] of Object.entries(RESULT_LINES)) {
      const result = all.find((r) => r.at === Number(at));
      expect(result, `no Result: at line ${at} of the runbook`).toBeDefined();
      for (const l of lines) expect(result!.text).toContain(l);
    }
  });

  it.each(Object.entries(RESULT_LINES).flatMap(([at, lines]) => lines.map((l) => [Number(at), l] as const)))(
    'result at line %i: `%s` is what the code said in a test',
    (_at, phrase) => {
      expect(wasSaid(phrase), `no test made fleet say "${phrase}"`).toBe(true);
    },
  );
});

it('reads the runbook as vendored', () => {
  expect(RUNBOOK).toContain('If something goes wrong');
});

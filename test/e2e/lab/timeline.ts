/**
 * Where a scenario's wall time goes, step by step: marks the test sets as it sees each thing
 * happen, and each action's own start and stop from the Workflow's status (Tinkerbell's times, in
 * whole seconds). Printed with the scenario's result; docs/testing.md's runtimes come from these lines.
 */
type Obj = { status?: Record<string, unknown> };

export class Timeline {
  private readonly marks: Array<[string, number]> = [];

  constructor(private readonly scenario: string) {
    this.mark('start');
  }

  mark(what: string): void {
    this.marks.push([what, Date.now()]);
  }

  /** `<scenario>: a→b 12 s, …, <action> 8 s, …, total N s`. */
  report(wf: Obj | undefined): string {
    const steps = this.marks.slice(1).map(([what, at], i) => `${what} ${((at - this.marks[i]![1]) / 1000).toFixed(0)} s`);
    const tasks = (wf?.status?.tasks as Array<{ actions: Array<{ name: string; executionStart?: string; executionStop?: string }> }> | undefined) ?? [];
    const actions = tasks
      .flatMap((t) => t.actions)
      .filter((a) => a.executionStart && a.executionStop)
      .map((a) => `${a.name} ${((Date.parse(a.executionStop!) - Date.parse(a.executionStart!)) / 1000).toFixed(0)} s`);
    const total = ((this.marks.at(-1)![1] - this.marks[0]![1]) / 1000).toFixed(0);
    return `e2e timeline, ${this.scenario}: ${steps.join(', ')} (of which the actions: ${actions.join(', ')}); total ${total} s`;
  }
}

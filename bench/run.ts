/**
 * `npm run bench [-- --json] [-- --only NAME]`: runs every benchmark in one process and prints
 * the figures; with `--json` the last line is one JSON object holding every figure by a stable name.
 * Each suite lives in its own file and returns `{ name: value }` figures with a line per figure.
 */
export interface Figure {
  name: string;
  value: number;
  unit: string;
  /** The goal, as the issue states it, e.g. "≥ 2000"; printed beside the figure. */
  goal?: string;
  note?: string;
}

export interface Suite {
  title: string;
  run(): Promise<Figure[]>;
}

const SUITES: Record<string, () => Promise<{ suite: Suite }>> = {
  attest: () => import('./attest.js'),
  'boot-storm': () => import('./boot-storm.js'),
  eventlog: () => import('./eventlog.js'),
  reconcile: () => import('./reconcile.js'),
  'image-to-disk': () => import('./image-to-disk.js'),
  agent: () => import('./agent.js'),
  syslog: () => import('./syslog.js'),
  inventory: () => import('./inventory.js'),
};

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const json = args.includes('--json');
  const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
  const all: Record<string, number> = {};
  for (const [key, load] of Object.entries(SUITES)) {
    if (only && key !== only) continue;
    const { suite } = await load();
    console.log(`\n## ${suite.title}`);
    for (const f of await suite.run()) {
      all[f.name] = f.value;
      const goal = f.goal ? `  (goal ${f.goal})` : '';
      const note = f.note ? `  ${f.note}` : '';
      console.log(`${f.name.padEnd(44)} ${formatValue(f.value).padStart(12)} ${f.unit}${goal}${note}`);
    }
  }
  if (json) console.log(JSON.stringify(all));
}

function formatValue(v: number): string {
  return Math.abs(v) >= 100 ? v.toFixed(0) : v.toPrecision(3);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});

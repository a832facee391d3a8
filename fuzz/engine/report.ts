import type { TargetResult } from './supervise.js';

const n = (x: number) => x.toLocaleString('en-US');

/** The per-target table `npm run fuzz -- --report` prints, in Markdown so the README can hold it. */
export function reportTable(results: TargetResult[]): string {
  const rows = [
    '| target | executions | crashes | findings | blocks (fleet) | functions (fleet) | blocks (all) | corpus (+found) | time | CPU | exec/s (CPU) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    rows.push(
      `| ${r.target} | ${n(r.execs)} | ${n(r.crashes)} | ${r.findings.length} | ${n(r.ownBlocks)} | ${n(r.ownFunctions)} | ${n(r.blocks)} | ${n(r.corpus)} (+${n(r.added)}) | ${formatTime(r.seconds)} | ${formatTime(r.cpuSeconds)} | ${n(Math.round(r.execs / Math.max(r.cpuSeconds, 0.001)))} |`,
    );
  }
  return rows.join('\n');
}

export function findingLines(results: TargetResult[]): string[] {
  return results.flatMap((r) => r.findings.map((f) => `${r.target}: ${f.key} (${f.count}×, smallest input ${f.size} bytes)`));
}

function formatTime(s: number): string {
  return s < 120 ? `${s.toFixed(1)} s` : `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

/**
 * Event log parse + replay throughput over the real logs in testdata/eventlogs: each pass parses
 * and replays every log (all banks), and the figure is the median of timed samples of passes, so a
 * noisy neighbour on a shared machine moves it less than a single long run would.
 */
import { readFileSync } from 'node:fs';
import { parseEventLog } from '../shared/eventlog/parse.js';
import { replay } from '../shared/eventlog/replay.js';
import { TESTDATA } from '../test/testdata.js';
import type { Figure, Suite } from './run.js';

const WARMUP_MS = 1000;
const SAMPLES = 25;
const SAMPLE_MS = 80;

function corpus(): Uint8Array[] {
  const tools = `${TESTDATA}eventlogs/tpm2-tools/`;
  const keylime = `${TESTDATA}eventlogs/keylime/`;
  const expected = JSON.parse(readFileSync(`${tools}EXPECTED_PCRS.json`, 'utf8')) as { expected_pcrs: Record<string, unknown> };
  return [
    ...Object.keys(expected.expected_pcrs).map((name) => readFileSync(tools + name)),
    readFileSync(`${keylime}binary_bios_measurements`),
    readFileSync(`${keylime}binary_bios_measurements-secureboot`),
    Buffer.from(readFileSync(`${keylime}mb_log.b64`, 'latin1'), 'base64'),
  ];
}

export const suite: Suite = {
  title: 'TCG event log: parse + replay',
  async run(): Promise<Figure[]> {
    const logs = corpus();
    const bytes = logs.reduce((n, b) => n + b.length, 0);
    const pass = (): void => {
      for (const b of logs) replay(parseEventLog(b));
    };
    const warmupEnd = performance.now() + WARMUP_MS;
    let passes = 0;
    while (performance.now() < warmupEnd) {
      pass();
      passes++;
    }
    const perSample = Math.max(1, Math.round((passes * SAMPLE_MS) / WARMUP_MS));
    const rates: number[] = [];
    for (let s = 0; s < SAMPLES; s++) {
      const start = performance.now();
      for (let i = 0; i < perSample; i++) pass();
      rates.push((bytes * perSample) / 1e6 / ((performance.now() - start) / 1000));
    }
    rates.sort((a, b) => a - b);
    const median = rates[Math.floor(SAMPLES / 2)]!;
    return [
      {
        name: 'eventlog_mb_per_s',
        value: median,
        unit: 'MB/s',
        goal: '≥ 200',
        note: `${logs.length} logs (${(bytes / 1024).toFixed(0)} KiB) a pass, median of ${SAMPLES} samples of ${perSample} passes`,
      },
    ];
  },
};

/**
 * A boot storm against one `fleet serve` (the shipped bundle, HTTPS on loopback): N machines, each
 * its own swtpm and its own source address, run the agent's attestation at the same moment; a
 * fresh fleetd for each N, and a peer over its session share just before. Beside each round trip,
 * the time its TPM commands took (TpmClock), so what the verifier and the network add is visible,
 * and each side's CPU; and a quiet attestation, one machine alone, as the floor. The machines,
 * their TPMs and fleetd share this machine's two cores, so the storm's latency is mostly the
 * swtpm processes waiting for a core: fleetd's CPU per verdict is the figure that carries over.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startRequest } from '../agent/attest/attest-once.js';
import { AttestationKeys } from '../agent/tpm/attestation-keys.js';
import { RIG_CATALOGUE } from '../test/swtpm/rig.js';
import { prepareFleetd, startFleetd, type Fleetd } from './fleetd.js';
import { cpuMs, rssMb } from './proc.js';
import type { Figure, Suite } from './run.js';
import { bindSourceAddresses } from './source-address.js';
import { attestTimed, flood, storm, type Attested, type Flood } from './storm.js';
import { startMachines, type StormMachine } from './storm-machines.js';

/** At 64 the machines' swtpm processes already take most of both cores: more would measure swtpm, not fleetd. */
const SIZES = [16, 64];
const QUIET_RUNS = 8;
const WARMUP = 3;
/** fleetd's share of sessions per peer address (SessionStore's default); the flooder asks 8 more. */
const SHARE = 64;
const FLOOD_STARTS = SHARE + 8;

/** Nearest rank: at N ≤ 100, p99 is the slowest machine. */
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(p * xs.length) - 1)]!;
const median = (xs: number[]) => percentile(xs, 0.5);

interface Round {
  attested: Attested[];
  wallMs: number;
  flood: Map<string, number>;
  idleRssMb: number;
  peakRssMb: number;
  /** CPU ms the storm took in fleetd, in all the swtpm processes, and in this process (the agents' part). */
  cpu: { fleetd: number; swtpm: number; agents: number };
  /** The peers of the storm's attest.verdict lines in fleetd's audit. */
  audited: Set<string>;
}

async function cpuDuring<T>(fleetd: number, machines: StormMachine[], fn: () => Promise<T>): Promise<{ result: T; cpu: Round['cpu'] }> {
  const swtpm = async () => (await Promise.all(machines.map((m) => cpuMs(m.tpmPid)))).reduce((a, b) => a + b, 0);
  const before = { fleetd: await cpuMs(fleetd), swtpm: await swtpm(), agents: process.cpuUsage() };
  const result = await fn();
  const agents = process.cpuUsage(before.agents);
  return {
    result,
    cpu: { fleetd: (await cpuMs(fleetd)) - before.fleetd, swtpm: (await swtpm()) - before.swtpm, agents: (agents.user + agents.system) / 1000 },
  };
}

/** One fresh fleetd for these machines: warmed by a few quiet attestations, then the flood, then the storm. */
async function round(dir: string, fleetd: Fleetd, machines: StormMachine[], f: Flood, quiet: Attested[] | null): Promise<Round> {
  await mkdir(dir);
  const nodes = join(dir, 'nodes.yaml');
  await writeFile(nodes, stringify({ ...RIG_CATALOGUE, nodes: Object.fromEntries(machines.map((m) => [m.hostname, m.entry])) }));
  const serve = await startFleetd(fleetd, nodes, join(dir, 'state'));
  try {
    const client = { baseUrl: serve.url, ca: fleetd.ca };
    // Machines in turn, so that no one TPM sets the floor.
    for (let i = 0; i < WARMUP + (quiet ? QUIET_RUNS : 0); i++) {
      const a = await attestTimed(machines[i % machines.length]!, client);
      if (a.verdict !== 'attested') throw new Error(`boot storm: the quiet attestation got ${a.verdict ?? a.error}`);
      if (i >= WARMUP) quiet?.push(a);
    }
    const idleRssMb = await rssMb(serve.pid, 'VmRSS');
    // Before the storm, so that its work is not in the machines' latency: its sessions are still held.
    const answers = await flood(f, client);
    const before = serve.stdout.length;
    const { result: s, cpu } = await cpuDuring(serve.pid, machines, () => storm(machines, client));
    const peakRssMb = await rssMb(serve.pid, 'VmHWM');
    const audited = new Set<string>();
    for (const line of serve.stdout.slice(before)) {
      const a = JSON.parse(line) as { audit?: string; peer?: string; stage?: string };
      if (a.audit === 'attest.verdict' && a.peer && !a.stage) audited.add(a.peer);
    }
    return { ...s, flood: answers, idleRssMb, peakRssMb, cpu, audited };
  } finally {
    await serve.stop();
  }
}

function figures(n: number, r: Round, floodAddress: string): Figure[] {
  const got = r.attested.filter((a) => a.verdict !== null);
  const lost = r.attested.filter((a) => a.verdict === null || !r.audited.has(a.address));
  const to429 = r.attested.filter((a) => a.error === '429').map((a) => a.address);
  const ms = got.map((a) => a.ms);
  const flood429 = r.flood.get('429') ?? 0;
  const floodOther = [...r.flood].filter(([k]) => k !== '200' && k !== '429').map(([k, v]) => `${v}× ${k}`);
  const peers429 = [...(flood429 ? [`${floodAddress} (${flood429})`] : []), ...to429];
  const p = `boot_storm_${n}`;
  return [
    { name: `${p}_p50_ms`, value: median(ms), unit: 'ms', note: `verdict latency, ${n} machines at once, each its own swtpm and address` },
    { name: `${p}_p99_ms`, value: percentile(ms, 0.99), unit: 'ms', note: 'nearest rank: the slowest machine' },
    {
      name: `${p}_verdicts_per_s`,
      value: got.length / (r.wallMs / 1000),
      unit: '/s',
      note: `${got.length} verdicts in ${(r.wallMs / 1000).toFixed(2)} s, first start to last verdict`,
    },
    {
      name: `${p}_lost`,
      value: lost.length,
      unit: 'machines',
      goal: '0',
      note: lost.length
        ? `no verdict (or none audited): ${lost.map((a) => `${a.address} ${a.error ?? a.verdict}`).join('; ')}`
        : 'every machine got its verdict, and fleetd audited each',
    },
    { name: `${p}_attested`, value: got.filter((a) => a.verdict === 'attested').length, unit: 'machines', goal: `${n}` },
    { name: `${p}_429s_to_machines`, value: to429.length, unit: 'answers', goal: '0' },
    {
      name: `${p}_429s_over_share`,
      value: flood429,
      unit: 'answers',
      goal: `${FLOOD_STARTS - SHARE}`,
      note: `one peer's ${FLOOD_STARTS} starts against a share of ${SHARE}, just before the storm; 429s went to: ${peers429.join(', ') || 'none'}${floodOther.length ? `; other answers: ${floodOther.join(', ')}` : ''}`,
    },
    { name: `${p}_fleetd_peak_rss_mb`, value: r.peakRssMb, unit: 'MB', note: `VmHWM; ${r.idleRssMb.toFixed(0)} MB resident before the storm` },
    { name: `${p}_tpm_ms`, value: median(got.map((a) => a.tpmMs)), unit: 'ms', note: 'median time inside TPM commands per attestation, in the storm' },
    { name: `${p}_tpm_fraction`, value: median(got.map((a) => a.tpmMs / a.ms)), unit: 'x', note: 'median share of a round trip spent in TPM commands' },
    {
      name: `${p}_fleetd_cpu_ms_per_verdict`,
      value: r.cpu.fleetd / got.length,
      unit: 'ms',
      note: "fleetd's CPU in the storm over its verdicts: what one core of the verifier spends on each",
    },
    {
      name: `${p}_swtpm_cpu_ms_per_attestation`,
      value: r.cpu.swtpm / n,
      unit: 'ms',
      note: `the swtpm processes' CPU in the storm; the agents' (TLS, JSON, this process) ${(r.cpu.agents / n).toFixed(0)} ms`,
    },
  ];
}

export const suite: Suite = {
  title: `boot storm: ${SIZES.join(' and ')} machines (swtpm each) attesting at once against fleet serve over HTTPS`,
  async run(): Promise<Figure[]> {
    const dir = await mkdtemp(join(tmpdir(), 'fleet-bench-storm-'));
    const unbind = bindSourceAddresses();
    const { machines, stop } = await startMachines(join(dir, 'machines'), Math.max(...SIZES));
    try {
      await mkdir(join(dir, 'fleetd'));
      const fleetd = await prepareFleetd(join(dir, 'fleetd'));
      const keys = await AttestationKeys.open(machines[0]!.tpm);
      const f: Flood = {
        address: '127.2.0.1',
        body: startRequest(keys, { ...machines[0]!.boot, serial: 'FLOOD', mac: '52:54:00:5e:ff:01' }),
        starts: FLOOD_STARTS,
      };
      await keys.close();
      const quiet: Attested[] = [];
      const out: Figure[] = [];
      for (const n of SIZES) {
        const r = await round(join(dir, `n${n}`), fleetd, machines.slice(0, n), f, n === SIZES[0] ? quiet : null);
        out.push(...figures(n, r, f.address));
      }
      return [
        {
          name: 'boot_storm_quiet_roundtrip_ms',
          value: median(quiet.map((a) => a.ms)),
          unit: 'ms',
          note: `one machine at a time, median of ${QUIET_RUNS}: the floor under the storm's latency`,
        },
        { name: 'boot_storm_quiet_tpm_ms', value: median(quiet.map((a) => a.tpmMs)), unit: 'ms', note: "its time inside TPM commands: the TPM's own limit" },
        ...out,
      ];
    } finally {
      await stop();
      unbind();
      await rm(dir, { recursive: true, force: true });
    }
  },
};

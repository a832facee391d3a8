/**
 * The nodes file at the lab's size and at 10,000 nodes: its parse (against the YAML library's own
 * duplicate-key check, which the previous reader used), fleetd's longest stall while it reads a
 * changed 10,000-node file, fleetd's CPU per attestation at 10 and at 10,000 nodes, and
 * `fleet status` over 10,000 devices. fleetd and the CLI run as they ship: the bundle.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { request } from 'node:https';
import { parseDocument, stringify } from 'yaml';
import { attestOnce } from '../agent/attest/attest-once.js';
import { ekHashOfCertificate } from '../shared/ek-cert/ek-certificate.js';
import { Tpm } from '../shared/tpm/client.js';
import { SocketTransport } from '../shared/tpm/transport.js';
import { readNodesFile } from '../verifier/inventory/embedded/nodes-file.js';
import { simulateBoot } from '../test/swtpm/boot.js';
import { copyTpmState, goldenTpm } from '../test/swtpm/provision.js';
import { BOOT_LOG, RIG_CATALOGUE } from '../test/swtpm/rig.js';
import { startSwtpm } from '../test/swtpm/swtpm.js';
import { prepareFleetd, startFleetd } from './fleetd.js';
import { cpuMs } from './proc.js';
import type { Figure, Suite } from './run.js';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const hex = (i: number, salt: string) => `${salt}${i.toString(16)}`.padStart(64, '0');

/** A lab-style nodes file of `n` nodes, each with every field, all distinct; `extra` entries first. */
function nodesFile(n: number, extra: Record<string, unknown> = {}): string {
  const nodes: Record<string, unknown> = { ...extra };
  for (let i = 0; i < n; i++)
    nodes[`node-${i}`] = {
      model: 'm720q',
      serial: `SN-${i}`,
      class: 'worker',
      switch_port: `sw${i >> 6} Port ${i & 63}`,
      address: `10.${64 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}/10`,
      bmc_type: 'amt',
      disk: '/dev/nvme0n1',
      disk_serial: `DISK-${i}`,
      approved_ek_rsa2048: hex(i, 'a'),
      approved_ek_eccp256: hex(i, 'b'),
    };
  return stringify({ ...RIG_CATALOGUE, nodes });
}

/** CPU ms of `fn` in this process, the median of `runs`. */
function cpu(fn: () => void, runs: number): number {
  const xs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.cpuUsage();
    fn();
    const d = process.cpuUsage(t0);
    xs.push((d.user + d.system) / 1000);
  }
  return median(xs);
}

/** GET /healthz once: how long fleetd took to answer. */
function healthzMs(url: string, ca: string): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(`${url}/healthz`, { ca, agent: false }, (res) => {
      res.resume();
      res.once('end', () => resolve(performance.now() - t0));
    });
    req.once('error', reject);
    req.end();
  });
}

/** `fleet status` as it ships, over the nodes file: the CPU its process used (user and system), by bash's time. */
function statusCpuMs(bundle: string, nodes: string, state: string): Promise<number> {
  const script = `TIMEFORMAT='%3U %3S'; time "$0" "$1" status --nodes "$2" --state "$3" > /dev/null`;
  return new Promise((resolve, reject) => {
    execFile('bash', ['-c', script, process.execPath, bundle, nodes, state], { maxBuffer: 1 << 26 }, (err, _out, stderr) => {
      if (err) return reject(new Error(`fleet status failed: ${stderr}`));
      const [user, sys] = stderr.trim().split('\n').at(-1)!.split(' ').map(Number);
      resolve(((user ?? Number.NaN) + (sys ?? Number.NaN)) * 1000);
    });
  });
}

export const suite: Suite = {
  title: 'the nodes file at 1,000 and 10,000 nodes: parse, reload under fleetd, attestation and status',
  async run(): Promise<Figure[]> {
    const dir = await mkdtemp(join(tmpdir(), 'fleet-bench-inventory-'));
    try {
      const k1 = nodesFile(1_000);
      const k10 = nodesFile(10_000);
      const parse1k = cpu(() => readNodesFile(k1), 5);
      const parse10k = cpu(() => readNodesFile(k10), 3);
      // The peer: the library's own duplicate-key check, then the data, as the previous reader parsed.
      const library10k = cpu(() => parseDocument(k10, { uniqueKeys: true }).toJS(), 3);

      // One machine, approved in a file of 10 and in one of 10,000: fleetd's CPU per attestation.
      const golden = await goldenTpm('a');
      const swtpm = await startSwtpm((await copyTpmState(golden, join(dir, 'tpm'))).stateDir);
      const tpm = new Tpm(await SocketTransport.connect({ path: swtpm.socketPath }));
      const eventLog = new Uint8Array(await readFile(BOOT_LOG));
      await simulateBoot(tpm, eventLog);
      const machine = {
        'bench-machine': {
          model: 'm720q',
          class: 'worker',
          serial: 'BENCH-1',
          approved_ek_rsa2048: ekHashOfCertificate(golden.ekCertRsaDer),
          approved_ek_eccp256: ekHashOfCertificate(golden.ekCertEccDer),
        },
      };
      const boot = { serial: 'BENCH-1', mac: '52:54:00:00:00:01', bootId: '00000000-0000-4000-8000-000000000001', uuid: null, eventLog, lldp: null };
      const fleetd = await prepareFleetd(dir);
      const perAttestation: Record<number, number> = {};
      let stallMs = 0;
      let healthzQuietMs = 0;
      let status10k = 0;
      for (const size of [10, 10_000]) {
        const nodes = join(dir, `nodes-${size}.yaml`);
        const state = join(dir, `state-${size}`);
        await writeFile(nodes, nodesFile(size - 1, machine));
        const serve = await startFleetd(fleetd, nodes, state);
        try {
          const client = { baseUrl: serve.url, ca: fleetd.ca };
          const once = async () => {
            const v = await attestOnce(tpm, client, boot);
            if (v.verdict !== 'attested') throw new Error(`bench attestation refused: ${v.message}`);
          };
          for (let i = 0; i < 3; i++) await once();
          const runs = 30;
          const before = await cpuMs(serve.pid);
          for (let i = 0; i < runs; i++) await once();
          perAttestation[size] = ((await cpuMs(serve.pid)) - before) / runs;
          if (size === 10_000) {
            const quiet: number[] = [];
            for (let i = 0; i < 20; i++) quiet.push(await healthzMs(serve.url, fleetd.ca));
            healthzQuietMs = median(quiet);
            // A changed file of 10,000 nodes, read while /healthz is asked every 10 ms: its slowest answer.
            await writeFile(nodes, nodesFile(size - 2, machine));
            const read = serve.stdout.length;
            const slowest: number[] = [];
            const deadline = Date.now() + 60_000;
            while (!serve.stdout.slice(read).some((l) => l.includes('"fleet.inventory"')) && Date.now() < deadline) {
              slowest.push(await healthzMs(serve.url, fleetd.ca));
              await new Promise((r) => setTimeout(r, 10));
            }
            stallMs = Math.max(...slowest);
            status10k = median([await statusCpuMs(fleetd.bundle, nodes, state), await statusCpuMs(fleetd.bundle, nodes, state)]);
          }
        } finally {
          await serve.stop();
        }
      }
      await tpm.close();
      await swtpm.stop();
      return [
        { name: 'nodes_file_parse_1k_ms', value: parse1k, unit: 'ms', note: 'CPU, median of 5: every field of 1,000 nodes checked' },
        { name: 'nodes_file_parse_10k_ms', value: parse10k, unit: 'ms', note: 'CPU, median of 3' },
        { name: 'nodes_file_parse_10k_vs_1k_ratio', value: parse10k / parse1k, unit: 'x', goal: '≤ 10' },
        {
          name: 'nodes_file_parse_10k_ratio_vs_yaml_unique_keys',
          value: parse10k / library10k,
          unit: 'x',
          note: "against the YAML library's parse with its own duplicate-key check (the previous reader's), which checks nothing else",
        },
        {
          name: 'fleetd_reload_10k_longest_healthz_ms',
          value: stallMs,
          unit: 'ms',
          goal: '≤ 100 stall',
          note: `while it reads a changed 10,000-node file; quiet: ${healthzQuietMs.toFixed(1)} ms`,
        },
        { name: 'fleetd_attest_cpu_10_nodes_ms', value: perAttestation[10]!, unit: 'ms', note: "fleetd's CPU per attestation (/proc), the mean of 30" },
        { name: 'fleetd_attest_cpu_10k_nodes_ms', value: perAttestation[10_000]!, unit: 'ms' },
        { name: 'fleetd_attest_cpu_10k_vs_10_ratio', value: perAttestation[10_000]! / perAttestation[10]!, unit: 'x', goal: '≈ 1' },
        { name: 'fleet_status_10k_cpu_ms', value: status10k, unit: 'ms', goal: '< 2000', note: 'the bundle, user + system, median of 2' },
      ];
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};

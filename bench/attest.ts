import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { attestOnce, buildReport, finishRequest, startRequest } from '../agent/attest/attest-once.js';
import { AttestationKeys } from '../agent/tpm/attestation-keys.js';
import { ekHashOfCertificate } from '../shared/ek-cert/ek-certificate.js';
import { Tpm } from '../shared/tpm/client.js';
import { SocketTransport } from '../shared/tpm/transport.js';
import type { StartRequest } from '../shared/wire/schemas.js';
import { startSession } from '../verifier/attest/challenge.js';
import { checkEvidence } from '../verifier/attest/evidence.js';
import { SessionStore } from '../verifier/attest/session-store.js';
import { AttestationService } from '../verifier/attest/service.js';
import { buildServer, listen } from '../verifier/http/server.js';
import { EmbeddedInventory } from '../verifier/inventory/embedded/embedded.js';
import { openDatabase } from '../verifier/state/database.js';
import { LocalStore } from '../verifier/state/local-store.js';
import { simulateBoot } from '../test/swtpm/boot.js';
import { BOOT_LOG, RIG_CATALOGUE } from '../test/swtpm/rig.js';
import { testInstalls } from '../test/install/talos-fixture.js';
import { copyTpmState, goldenTpm } from '../test/swtpm/provision.js';
import { startSwtpm } from '../test/swtpm/swtpm.js';
import { stringify } from 'yaml';
import { TpmClock } from './tpm-clock.js';
import { tpm2ToolsAttestSteps } from './tpm2-tools.js';
import type { Figure, Suite } from './run.js';

const RUNS = 12;
const WARMUP = 2;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Calls per second of `fn` on this one thread: the median of several short windows after a
 * warm-up, so one window disturbed by the machine's other work does not set the figure.
 */
function rate(fn: () => void, windows = 7, ms = 400): number {
  for (let i = 0; i < 50; i++) fn();
  const rates: number[] = [];
  for (let w = 0; w < windows; w++) {
    let n = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < ms) {
      fn();
      n++;
    }
    rates.push(n / ((performance.now() - t0) / 1000));
  }
  return median(rates);
}

export const suite: Suite = {
  title: 'attestation: agent + verifier on swtpm vs. tpm2-tools; verifier throughput',
  async run(): Promise<Figure[]> {
    const dir = await mkdtemp(join(tmpdir(), 'fleet-bench-'));
    const golden = await goldenTpm('a');
    const ours = await startSwtpm((await copyTpmState(golden, join(dir, 'ours'))).stateDir);
    const theirs = await startSwtpm((await copyTpmState(golden, join(dir, 'theirs'))).stateDir);
    try {
      const clock = new TpmClock(await SocketTransport.connect({ path: ours.socketPath }));
      const tpm = new Tpm(clock);
      // A recorded real boot (41 kB, 99 events, Secure Boot on): the size a verifier really replays.
      const eventLog = new Uint8Array(await readFile(BOOT_LOG));
      await simulateBoot(tpm, eventLog);
      const nodesPath = join(dir, 'nodes.yaml');
      const approved = { approved_ek_rsa2048: ekHashOfCertificate(golden.ekCertRsaDer), approved_ek_eccp256: ekHashOfCertificate(golden.ekCertEccDer) };
      await writeFile(nodesPath, stringify({ ...RIG_CATALOGUE, nodes: { 'bench-1': { model: 'm720q', class: 'worker', serial: 'BENCH-1', ...approved } } }));
      const db = openDatabase(join(dir, 'state'));
      const inventory = new EmbeddedInventory(nodesPath, db);
      const local = new LocalStore(db);
      const { installs, metrics } = await testInstalls(dir, inventory, local, () => undefined);
      const service = new AttestationService({ inventory, store: local, audit: () => undefined, installs, metrics });
      const app = buildServer({ service });
      const url = await listen(app, { host: '127.0.0.1', port: 0 }, false);
      const boot = { serial: 'BENCH-1', mac: '52:54:00:00:00:01', bootId: '00000000-0000-4000-8000-000000000001', uuid: null, eventLog, lldp: null };

      // The whole attestation: both EKs, a new AK, two HTTP round trips, two activations, a quote, the checks.
      const oursMs: number[] = [];
      const tpmMs: number[] = [];
      for (let i = 0; i < WARMUP + RUNS; i++) {
        clock.take();
        const t0 = performance.now();
        const v = await attestOnce(tpm, { baseUrl: url }, boot);
        if (v.verdict !== 'attested') throw new Error(`bench attestation refused: ${v.message}`);
        const ms = performance.now() - t0;
        if (i < WARMUP) continue;
        oursMs.push(ms);
        tpmMs.push(clock.take());
      }

      // The same single-EK sequence with tpm2-tools, as an operator scripts it.
      const theirsMs: number[] = [];
      for (let i = 0; i < WARMUP + RUNS; i++) {
        const work = await mkdtemp(join(dir, 'tools-'));
        const { totalMs } = await tpm2ToolsAttestSteps(theirs.socketPath, work);
        if (i >= WARMUP) theirsMs.push(totalMs);
      }

      // Verifier throughput, one thread: a recorded real attestation, checked again and again.
      const keys = await AttestationKeys.open(tpm);
      const req: StartRequest = startRequest(keys, boot);
      const store = new SessionStore(3_600_000, { total: 1_000_000, perPeer: 1_000_000 });
      const { session, response } = startSession(store, req, '127.0.0.1');
      const finish = await finishRequest(keys, response, buildReport(session.id, boot), eventLog);
      await keys.close();
      const verifications = rate(() => checkEvidence(session, finish));
      const challenges = rate(() => startSession(store, req, '127.0.0.1'));
      await app.close();
      await tpm.close();
      db.close();

      const o = median(oursMs);
      const t = median(theirsMs);
      return [
        { name: 'attest_roundtrip_ms', value: o, unit: 'ms', note: `median of ${RUNS}: both EKs, HTTP, verifier checks` },
        { name: 'attest_tpm_ms', value: median(tpmMs), unit: 'ms', note: "of which inside TPM commands (median of the same runs): the TPM's own limit" },
        { name: 'tpm2_tools_attest_ms', value: t, unit: 'ms', note: `median of ${RUNS}: RSA EK only, no network` },
        { name: 'attest_roundtrip_ratio_vs_tpm2_tools', value: o / t, unit: 'x', goal: '≤ 0.75' },
        {
          name: 'verifier_verifications_per_s',
          value: verifications,
          unit: '/s',
          goal: '≥ 2000',
          note: 'finish checks on one thread: secrets, quote signature, PCR digest, event log replay',
        },
        { name: 'verifier_challenges_per_s', value: challenges, unit: '/s', note: 'start on one thread: key checks, MakeCredential for RSA-2048 and P-256' },
      ];
    } finally {
      await ours.stop();
      await theirs.stop();
      await rm(dir, { recursive: true, force: true });
    }
  },
};

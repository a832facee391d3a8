/**
 * `fleet serve` while two addresses keep 64 bodies of nested JSON (`[[[…]]]`, as large as a
 * finish may be) in flight: each is refused before it is parsed, `/healthz` answers at once, and
 * a machine's agent (swtpm) attests through it.
 */
import { request } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ATTEST_LINES } from '../../agent/attest/lines.js';
import { ekHashOfCertificate } from '../../shared/ek-cert/ek-certificate.js';
import { PATHS } from '../../shared/wire/schemas.js';
import { type FleetServe, startFleetServe } from '../fleet-serve.js';
import { nodeEntry } from '../node-entry.js';
import { type BootedMachine, bootMachine } from '../swtpm/booted-machine.js';
import { RIG_CATALOGUE, RIG_PORT } from '../swtpm/rig.js';

const SERIAL = 'SN-NESTED-1';
let dir: string;
let fleetd: FleetServe;
let machine: BootedMachine;
let port: number;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fleet-nested-'));
  machine = await bootMachine(dir);
  const p = machine.provisioned;
  const node = nodeEntry({
    serial: SERIAL,
    switch_port: RIG_PORT,
    approved_ek_rsa2048: ekHashOfCertificate(p.ekCertRsaDer),
    approved_ek_eccp256: ekHashOfCertificate(p.ekCertEccDer),
  });
  const nodes = join(dir, 'nodes.yaml');
  await writeFile(nodes, stringify({ ...RIG_CATALOGUE, nodes: { 'node-1': node } }));
  fleetd = await startFleetServe(['--nodes', nodes, '--state', join(dir, 'state'), '--listen', '127.0.0.1:0', '--syslog-listen', 'off']);
  port = Number(new URL(fleetd.url).port);
}, 120_000);
afterAll(async () => {
  await fleetd?.stop();
  await machine?.close();
  await rm(dir, { recursive: true, force: true });
});

/** POSTs `body` to `path` from `address`; answers the status, or the error. */
function post(address: string, path: string, body: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: 'POST', localAddress: address, agent: false, headers: { 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 'no status'));
      },
    );
    req.once('error', (err) => resolve(err.message));
    req.end(body);
  });
}

function healthz(): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/healthz', agent: false }, (res) => {
      res.resume();
      res.once('end', () => resolve(performance.now() - t0));
    });
    req.once('error', reject);
    req.end();
  });
}

describe('fleet serve under nested-JSON bodies', () => {
  it('refuses each before parsing it, answers /healthz at once, and a machine attests meanwhile', async () => {
    // As deep as a finish may be large: 320,000 levels.
    const deep = `${'['.repeat(320_000)}${']'.repeat(320_000)}`;
    let stop = false;
    const statuses: Array<number | string> = [];
    const flood = Array.from({ length: 64 }, async (_, i) => {
      while (!stop) statuses.push(await post(i % 2 ? '127.0.30.1' : '127.0.30.2', PATHS.finish, deep));
    });
    try {
      await new Promise((r) => setTimeout(r, 1000));
      const slowest = Math.max(...(await Promise.all([healthz(), healthz(), healthz()])));
      const lines = await machine.attest(fleetd.url, SERIAL);
      expect(lines.at(-1)).toBe(ATTEST_LINES.passed());
      expect(slowest).toBeLessThan(2000);
    } finally {
      stop = true;
      await Promise.all(flood);
    }
    expect(statuses.length).toBeGreaterThan(64);
    expect(new Set(statuses)).toEqual(new Set([400]));
  }, 120_000);
});

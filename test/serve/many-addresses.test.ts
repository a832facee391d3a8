/**
 * `fleet serve` with its defaults against a peer on the node LAN that holds many addresses: 48
 * source addresses (two /24s of 24, as one host's aliases) each keep 32 quiet TLS connections
 * open, re-opening each as fleetd closes it. A machine connecting from another address, in
 * another /24 or in the flooders' own, is answered at every try.
 */
import { request } from 'node:https';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as netConnect } from 'node:net';
import { connect, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { type FleetServe, startFleetServe } from '../fleet-serve.js';
import { RIG_CATALOGUE } from '../swtpm/rig.js';
import { selfSigned, tlsFiles } from '../tls-files.js';

let dir: string;
let fleetd: FleetServe;
let port: number;
let ca: Buffer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fleet-flood-'));
  const tls = selfSigned(tlsFiles(dir), { subject: '/CN=fleetd', ips: ['127.0.0.1'] });
  ca = await readFile(tls.cert);
  const nodes = join(dir, 'nodes.yaml');
  await writeFile(nodes, stringify({ ...RIG_CATALOGUE, nodes: {} }));
  fleetd = await startFleetServe([
    '--nodes',
    nodes,
    '--state',
    join(dir, 'state'),
    '--listen',
    '127.0.0.1:0',
    '--cert',
    tls.cert,
    '--key',
    tls.key,
    '--syslog-listen',
    'off',
  ]);
  port = Number(new URL(fleetd.url).port);
}, 60_000);
afterAll(async () => {
  await fleetd?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** 32 quiet TLS connections from `address`, each opened again as soon as it is closed, until stopped. */
function quietConnections(address: string, count: number, stopped: () => boolean): Set<TLSSocket> {
  const open = new Set<TLSSocket>();
  const one = () => {
    if (stopped()) return;
    const s = connect({ socket: netConnect({ host: '127.0.0.1', port, localAddress: address }), rejectUnauthorized: false });
    open.add(s);
    s.on('error', () => undefined);
    s.once('close', () => {
      open.delete(s);
      setTimeout(one, 50);
    });
  };
  for (let i = 0; i < count; i++) one();
  return open;
}

/** One try of a machine at `address`: GET /healthz, answered within 5 s or not. */
function healthz(address: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/healthz', localAddress: address, ca, servername: '127.0.0.1', timeout: 5000, agent: false },
      (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 'no status'));
      },
    );
    req.once('timeout', () => req.destroy(new Error('no answer in 5 s')));
    req.once('error', (err) => resolve(err.message));
    req.end();
  });
}

describe('fleet serve under a flood from many addresses', () => {
  it('answers a machine from another address on 5 of 5 tries, 8 s apart, in another /24 and in the flooders’ own', async () => {
    let stop = false;
    const flooders = Array.from({ length: 48 }, (_, i) => `127.0.${10 + Math.floor(i / 24)}.${1 + (i % 24)}`);
    const floods = flooders.map((a) => quietConnections(a, 32, () => stop));
    try {
      await new Promise((r) => setTimeout(r, 3000)); // the table full before the first try
      const tries: Array<[number | string, number | string]> = [];
      for (let t = 0; t < 5; t++) {
        if (t > 0) await new Promise((r) => setTimeout(r, 8000));
        tries.push(await Promise.all([healthz('127.0.20.7'), healthz('127.0.10.200')]));
      }
      expect(tries).toEqual(Array(5).fill([200, 200]));
      // The flood was real: fleetd held many of its connections throughout.
      expect(floods.reduce((n, f) => n + f.size, 0)).toBeGreaterThan(200);
    } finally {
      stop = true;
      for (const f of floods) for (const s of f) s.destroy();
    }
  }, 90_000);
});

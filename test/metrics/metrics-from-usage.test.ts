/**
 * `fleet serve --metrics-from` as an operator types it: a network it cannot read is a usage error
 * at start-up, naming the value, and never a wider network than was meant (`10.0.9.0/` read as /0
 * would open /metrics to everyone).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseSubnet } from '../../shared/net/subnet.js';
import { startFleetServe } from '../fleet-serve.js';

let dir: string;
let args: string[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fleet-metrics-from-'));
  await writeFile(join(dir, 'nodes.yaml'), stringify({ nodes: {} }));
  args = ['--nodes', join(dir, 'nodes.yaml'), '--state', join(dir, 'state'), '--listen', '127.0.0.1:0', '--syslog-listen', 'off'];
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('fleet serve --metrics-from', () => {
  it('refuses a network it cannot read before it listens, naming the value', async () => {
    for (const bad of ['10.0.9.0/', '10.0.9.0/0x8', 'spore/24']) {
      const started = await startFleetServe([...args, '--metrics-from', `127.0.0.1,${bad}`], { startTimeoutMs: 20_000 }).then(
        async (fleetd) => `served: ${await fleetd.stop()}`,
        (err: Error) => err.message,
      );
      expect(started, bad).toMatch(/^fleet serve exited 1:/);
      expect(started, bad).toContain(`fleet: --metrics-from: ${bad} is not an address or an address/prefix [usage]`);
    }
  }, 90_000);

  it('reads an address, or an address and a prefix of decimal digits within its family', () => {
    expect(parseSubnet('10.0.9.0/24')).toEqual({ address: '10.0.9.0', prefix: 24, family: 'ipv4' });
    expect(parseSubnet('2001:db8::7')).toEqual({ address: '2001:db8::7', prefix: 128, family: 'ipv6' });
    expect(parseSubnet('0.0.0.0/0')).toEqual({ address: '0.0.0.0', prefix: 0, family: 'ipv4' });
    for (const bad of [
      '',
      '10.0.9.0/',
      '10.0.9.0/x',
      '10.0.9.0/33',
      '2001:db8::/129',
      '10.0.9.0/ 8',
      '10.0.9.0/0x8',
      '10.0.9.0/1e1',
      '10.0.9.0/24/8',
      '/24',
      '10.0.9/24',
    ])
      expect(parseSubnet(bad), bad).toBeNull();
  });
});

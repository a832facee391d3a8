/** `fleet lldp [--json] FILE`, run as a user runs it. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fleetCli } from '../fleet-cli.js';
import { afterAll, describe, it } from 'vitest';
import { concatBytes } from '../../shared/bytes/hex.js';
import { buildLldpFrame } from './frame.js';
import { LLDPD, frameOf, pcap } from './fixtures.js';

const fleet = (...args: string[]) => fleetCli('lldp', ...args);

const TMP = mkdtempSync(join(tmpdir(), 'fleet-lldp-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));
function tmpFile(name: string, bytes: Uint8Array): string {
  const path = join(TMP, name);
  writeFileSync(path, bytes);
  return path;
}

/** What `--json` prints for each of lldpd's captures (values from EXPECTED.json and the device notes). */
const JSON_OUTPUT: Record<string, object> = {
  'sg200.pcap': { chassisId: '00:35:35:35:35:35', portId: 'g1', portIdSubtype: 'ifName', ttl: 120, systemName: null, portDescription: null },
  '8023bt.pcap': {
    chassisId: 'c0:64:e4:a9:9b:80',
    portId: 'Gi1/0/2',
    portIdSubtype: 'ifName',
    ttl: 120,
    systemName: 'cisco-bt-switch',
    portDescription: 'GigabitEthernet1/0/2',
  },
  'connectx.pcap': {
    chassisId: '50:6b:4b:f6:1e:b3',
    portId: '50:6b:4b:f6:1e:b1',
    portIdSubtype: 'mac',
    ttl: 48,
    systemName: null,
    portDescription: 'ConnectX-4 Lx, 25G/10G/1G SFP',
  },
  'med-loc-malformed.pcap': {
    chassisId: '0a:c0:de:9d:0a:74',
    portId: '3e:3e:3e:3e:3e:3e',
    portIdSubtype: 'mac',
    ttl: 16,
    systemName: 'defensics',
    portDescription: 'eth0',
  },
  'lldp.0.raw': { chassisId: '00:17:d1:a8:35:bf', portId: '00:17:d1:a8:36:02', portIdSubtype: 'mac', ttl: 120, systemName: null, portDescription: null },
  'lldp.1.raw': {
    chassisId: '00:16:17:2f:a1:b6',
    portId: '00:16:17:2f:a1:b6',
    portIdSubtype: 'mac',
    ttl: 120,
    systemName: 'naruto.XXXXXXXXXXXXXXXXXXX',
    portDescription: 'eth0',
  },
};

describe.concurrent('fleet lldp', () => {
  for (const [name, frame] of Object.entries(JSON_OUTPUT)) {
    it(`--json ${name}: one JSON object`, async ({ expect }) => {
      const run = await fleet('--json', LLDPD + name);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout.endsWith('\n')).toBe(true);
      expect(run.stdout.trimEnd().split('\n')).toHaveLength(1);
      expect(JSON.parse(run.stdout)).toEqual({ frames: [frame] });
    });
  }

  it('--json skips frames that are not LLDP and keeps the order of the others', async ({ expect }) => {
    const ipv4 = concatBytes(frameOf('lldp.0.raw').subarray(0, 12), new Uint8Array([8, 0]), new Uint8Array(46));
    const built = buildLldpFrame({ chassisMac: '24:5a:4c:00:00:01', portId: 'Port 7', systemName: 'usw-rack-1' });
    const run = await fleet('--json', tmpFile('mixed.pcap', pcap([frameOf('connectx.pcap'), ipv4, built])));
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      frames: [
        JSON_OUTPUT['connectx.pcap'],
        { chassisId: '24:5a:4c:00:00:01', portId: 'Port 7', portIdSubtype: 'ifName', ttl: 120, systemName: 'usw-rack-1', portDescription: null },
      ],
    });
  });

  it('prints a readable summary without --json', async ({ expect }) => {
    const run = await fleet(LLDPD + '8023bt.pcap');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^frame 1: LLDP from c0:64:e4:a9:9b:82$/m);
    expect(run.stdout).toMatch(/^ {2}chassis ID +c0:64:e4:a9:9b:80 \(mac\)$/m);
    expect(run.stdout).toMatch(/^ {2}port ID +Gi1\/0\/2 \(ifName\)$/m);
    expect(run.stdout).toMatch(/^ {2}system name +cisco-bt-switch$/m);
    expect(run.stdout).toMatch(/^ {2}port VLAN +1$/m);
    expect(run.stdout).toMatch(/^ {2}PoE +PSE enabled, class 4, type 2, allocated 51\.0 W$/m);
  });

  it("lists a frame's problems and escapes control characters", async ({ expect }) => {
    const run = await fleet(LLDPD + 'med-loc-malformed.pcap');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^ {2}problem +LLDP-MED Location Identification TLV at byte 46: civic address LCI length 2/m);
    const evil = buildLldpFrame({ chassisMac: '02:00:00:00:00:01', portId: 'p1', systemName: 'sw\u001b[2J' });
    const escaped = await fleet(tmpFile('evil.raw', evil));
    expect(escaped.stdout).toContain('system name       sw\\x1b[2J');
    expect(escaped.stdout).not.toContain('\u001b');
  });

  const bad: [string, () => string, string][] = [
    ['a file that is no capture', () => LLDPD + 'EXPECTED.json', 'lldp-capture-invalid'],
    ['a missing file', () => LLDPD + 'no-such.pcap', 'lldp-unreadable'],
    [
      'an LLDP frame without its mandatory TLVs',
      () => tmpFile('header-only.raw', buildLldpFrame({ chassisMac: '02:00:00:00:00:01', portId: 'p' }).subarray(0, 14)),
      'lldp-malformed',
    ],
    ['a Linux cooked capture', () => tmpFile('sll.pcap', pcap([frameOf('lldp.0.raw')], { linktype: 113 })), 'lldp-capture-unsupported'],
  ];
  for (const [what, file, code] of bad) {
    it(`refuses ${what} with one line naming ${code}`, async ({ expect }) => {
      const run = await fleet('--json', file());
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr.endsWith('\n')).toBe(true);
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(new RegExp(`^fleet lldp: .*\\[${code}\\]\\n$`));
    });
  }

  it('names the frame that does not parse', async ({ expect }) => {
    const run = await fleet(tmpFile('second-bad.pcap', pcap([frameOf('lldp.0.raw'), frameOf('lldp.0.raw').subarray(0, 20)])));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/: frame 2: LLDP frame: Chassis ID TLV claims 7 bytes, 4 left \(at byte 14\) \[lldp-malformed\]\n$/);
  });

  it('prints usage for a missing FILE', async ({ expect }) => {
    const run = await fleet('--json');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^usage: fleet lldp/);
  });
});

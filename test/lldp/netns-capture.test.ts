/**
 * The agent's live LLDP capture, bundled as dist/agent.mjs is (one file plus cap.node) and run
 * inside a network namespace: real frames cross a veth pair from a "switch" namespace, and the
 * capture returns the first LLDPDU, skipping whatever else arrives. Needs root (namespaces, raw
 * sockets), python3 and libpcap.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { concatBytes, fromHex } from '../../shared/bytes/hex.js';
import { parseLldpFrame } from '../../shared/lldp/parse.js';
import { seenPort } from '../../verifier/attest/seen-port.js';
import { AGENT_BUNDLE } from '../../scripts/build.js';
import { tlv } from './fixtures.js';
import { buildLldpFrame } from './frame.js';
import { createVethPair, removeVethPair, sendFrames, waitForCaptureSocket, type VethPair } from './netns.js';

const isRoot = process.getuid?.() === 0;

/** What the switch announces. */
const SWITCH = { chassisMac: '24:5a:4c:00:00:01', portId: 'Port 5', ttl: 120, systemName: 'sw-rack-1', portDescription: 'uplink of node-1' };
const LLDP = buildLldpFrame(SWITCH);
const header = (ethertype: number[]): Uint8Array => concatBytes(LLDP.subarray(0, 12), new Uint8Array(ethertype));
/** Frames the capture must skip: each reaches it (LLDP ethertype or an LLDP group destination) and none is an LLDPDU. */
const JUNK: Record<string, Uint8Array> = {
  'IPv4 to the nearest-bridge address': concatBytes(header([0x08, 0x00]), new Uint8Array(46)),
  'an STP BPDU (LLC, to 01:80:c2:00:00:00)': concatBytes(fromHex('0180c2000000'), LLDP.subarray(6, 12), fromHex('0026424203000000000000')),
  'an LLDPDU cut off after 20 bytes': LLDP.subarray(0, 20),
  'an LLDPDU without Port ID and TTL': concatBytes(header([0x88, 0xcc]), tlv(1, 4, 0x24, 0x5a, 0x4c, 0, 0, 1), tlv(0)),
  'garbage after ethertype 0x88cc': concatBytes(
    header([0x88, 0xcc]),
    Uint8Array.from({ length: 200 }, (_, i) => (i * 37 + 11) & 0xff),
  ),
};

interface ProbeRun {
  /** null: killed for not exiting. */
  code: number | null;
  result: { frame: string | null; reason?: string; ms: number } | undefined;
  stderr: string;
}

let bundleDir = '';
let noAddonDir = '';
const pairs: VethPair[] = [];
const children = new Set<ChildProcess>();

/**
 * Runs the bundled probe (see capture-probe.ts): inside `ns` when given, as nobody when asked,
 * and with `hideFile` (libpcap) replaced by an empty file in a mount namespace of its own.
 */
function probe(args: {
  ns?: string;
  nic: string;
  timeoutMs: number;
  abortAfterMs?: number;
  asNobody?: boolean;
  hideFile?: string;
  dir?: string;
}): Promise<ProbeRun> {
  let argv = [process.execPath, '--expose-gc', join(args.dir ?? bundleDir, 'probe.mjs'), args.nic, String(args.timeoutMs)];
  if (args.abortAfterMs !== undefined) argv.push(String(args.abortAfterMs));
  if (args.asNobody) argv = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', ...argv];
  if (args.hideFile) argv = ['unshare', '--mount', 'sh', '-c', 'mount --bind /dev/null "$0" && exec "$@"', args.hideFile, ...argv];
  if (args.ns) argv = ['ip', 'netns', 'exec', args.ns, ...argv];
  const child = spawn(argv[0]!, argv.slice(1), { cwd: tmpdir(), stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => void (stdout += d));
  child.stderr!.on('data', (d: Buffer) => void (stderr += d));
  // A capture that kept the event loop alive would never exit: give it the window and then some.
  const killer = setTimeout(() => child.kill('SIGKILL'), args.timeoutMs + 15_000);
  return new Promise((done) => {
    child.on('close', (code, signal) => {
      clearTimeout(killer);
      children.delete(child);
      const line = stdout.trim();
      done({ code: signal ? null : code, result: line ? JSON.parse(line) : undefined, stderr });
    });
  });
}

function vethPair(): VethPair {
  const pair = createVethPair();
  pairs.push(pair);
  return pair;
}

beforeAll(async () => {
  // Outside the repo, so nothing can come from node_modules; readable by nobody for the permission test.
  bundleDir = mkdtempSync(join(tmpdir(), 'fleet-lldp-probe-'));
  chmodSync(bundleDir, 0o755);
  await build({ ...AGENT_BUNDLE, entryPoints: [resolve('test/lldp/capture-probe.ts')], outfile: join(bundleDir, 'probe.mjs'), logLevel: 'error' });
  noAddonDir = join(bundleDir, 'without-cap-node');
  mkdirSync(noAddonDir);
  copyFileSync(join(bundleDir, 'probe.mjs'), join(noAddonDir, 'probe.mjs'));
});

afterEach(() => {
  for (const child of children) child.kill('SIGKILL');
  children.clear();
  for (const pair of pairs.splice(0)) removeVethPair(pair);
});

afterAll(() => {
  if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
});

describe('the agent bundle', () => {
  it('is one file plus cap.node, which it requires from beside itself', () => {
    expect(
      readdirSync(bundleDir)
        .filter((f) => f !== 'without-cap-node')
        .sort(),
    ).toEqual(['cap.node', 'probe.mjs']);
    const bundle = readFileSync(join(bundleDir, 'probe.mjs'), 'utf8');
    // The probes run from outside the repo, so what they load comes from here, not node_modules.
    expect(bundle).toMatch(/[\w$]+\("\.\/cap\.node"\)/); // require, renamed by the minifier
  });

  it('without cap.node beside it, the capture says so and the process carries on', async () => {
    const run = await probe({ nic: 'lo', timeoutMs: 1000, dir: noAddonDir });
    expect(run.code, run.stderr).toBe(0);
    expect(run.result?.frame).toBeNull();
    expect(run.result?.reason).toMatch(
      /^LLDP capture unavailable: cap\.node cannot be loaded \(.*cap\.node.*\); the agent bundle needs cap\.node beside agent\.mjs$/,
    );
  });
});

describe.skipIf(!isRoot)('live LLDP capture in a network namespace (root)', () => {
  it('the junk frames really are no LLDPDU', () => {
    for (const [name, frame] of Object.entries(JUNK)) expect(() => parseLldpFrame(frame), name).toThrow();
  });

  it('returns the switch frame byte for byte, after skipping non-LLDP and malformed frames', async () => {
    const pair = vethPair();
    const running = probe({ ns: pair.hostNs, nic: pair.hostNic, timeoutMs: 30_000 });
    await waitForCaptureSocket(pair);
    sendFrames(pair, Object.values(JUNK));
    sendFrames(pair, [LLDP, buildLldpFrame({ ...SWITCH, portId: 'Port 6' })]);
    const run = await running;
    expect(run.code, run.stderr).toBe(0);
    expect(run.result?.reason).toBeUndefined();
    expect(run.result?.frame).toBe(Buffer.from(LLDP).toString('hex'));
    const parsed = parseLldpFrame(fromHex(run.result!.frame!));
    expect(parsed.chassisId).toMatchObject({ subtypeName: 'mac', value: SWITCH.chassisMac });
    expect(parsed.portId).toMatchObject({ subtypeName: 'ifName', value: SWITCH.portId });
    expect(parsed.ttl).toBe(SWITCH.ttl);
    expect(parsed.systemName).toBe(SWITCH.systemName);
    expect(parsed.portDescription).toBe(SWITCH.portDescription);
  });

  it('a real switch daemon (lldpd) on the far end: the capture takes its frame, and the port it names is the one the verifier reads', async () => {
    const pair = vethPair();
    const dir = mkdtempSync(join(tmpdir(), 'fleet-lldpd-'));
    chmodSync(dir, 0o755); // lldpd's unprivileged half reaches its socket here
    const ctl = join(dir, 'lldpd.socket');
    const inSwitch = (cmd: string, args: string[]) => ['netns', 'exec', pair.switchNs, cmd, ...args];
    // Foreground, this NIC only, its own control socket: nothing of the machine's own lldpd (if any) is touched.
    const lldpd = spawn('ip', inSwitch('lldpd', ['-d', '-I', pair.switchNic, '-u', ctl]), { stdio: 'ignore' });
    children.add(lldpd);
    try {
      const cli = (...a: string[]) => execFileSync('ip', inSwitch('lldpcli', ['-u', ctl, ...a]), { stdio: ['ignore', 'pipe', 'pipe'] });
      for (let i = 0; ; i++) {
        try {
          cli('configure', 'system', 'hostname', SWITCH.systemName);
          break;
        } catch (err) {
          if (i > 50) throw err;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      cli('configure', 'lldp', 'portidsubtype', 'ifname');
      cli('configure', 'ports', pair.switchNic, 'lldp', 'portdescription', SWITCH.portDescription);
      const running = probe({ ns: pair.hostNs, nic: pair.hostNic, timeoutMs: 30_000 });
      await waitForCaptureSocket(pair);
      cli('configure', 'lldp', 'tx-interval', '1');
      const run = await running;
      expect(run.code, run.stderr).toBe(0);
      const parsed = parseLldpFrame(fromHex(run.result!.frame!));
      expect(parsed.systemName).toBe(SWITCH.systemName);
      // The switch port as the verifier reads it from the frame the agent reports.
      expect(seenPort(run.result!.frame!)).toEqual({ port: pair.switchNic, names: [pair.switchNic, SWITCH.portDescription] });
    } finally {
      lldpd.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('captures an LLDPDU behind an 802.1Q tag', async () => {
    const pair = vethPair();
    const tagged = concatBytes(LLDP.subarray(0, 12), fromHex('81000005'), LLDP.subarray(12));
    const running = probe({ ns: pair.hostNs, nic: pair.hostNic, timeoutMs: 30_000 });
    await waitForCaptureSocket(pair);
    sendFrames(pair, [tagged]);
    const run = await running;
    expect(run.code, run.stderr).toBe(0);
    expect(parseLldpFrame(fromHex(run.result!.frame!))).toMatchObject({ ethernet: { vlanIds: [5] }, portId: { value: SWITCH.portId } });
  });

  it('no LLDPDU within the window: { frame: null, reason: "timeout" } after about the window, junk notwithstanding', async () => {
    const pair = vethPair();
    const window = 1500;
    const running = probe({ ns: pair.hostNs, nic: pair.hostNic, timeoutMs: window });
    await waitForCaptureSocket(pair);
    sendFrames(pair, Object.values(JUNK));
    const run = await running;
    expect(run.code, run.stderr).toBe(0);
    expect(run.result).toMatchObject({ frame: null, reason: 'timeout' });
    expect(run.result!.ms).toBeGreaterThanOrEqual(window - 50);
    expect(run.result!.ms).toBeLessThan(window + 10_000);
  });

  it('an abort ends the capture early with reason "aborted"', async () => {
    const pair = vethPair();
    const run = await probe({ ns: pair.hostNs, nic: pair.hostNic, timeoutMs: 30_000, abortAfterMs: 300 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.result).toMatchObject({ frame: null, reason: 'aborted' });
    expect(run.result!.ms).toBeLessThan(20_000);
  });

  it('a NIC that does not exist: a reason naming it and the NICs there are, and no crash after garbage collection', async () => {
    const pair = vethPair();
    const run = await probe({ ns: pair.hostNs, nic: 'eth9', timeoutMs: 30_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(run.result?.frame).toBeNull();
    expect(run.result?.reason).toMatch(/^LLDP capture: no NIC named eth9 \(libpcap: .+\); NICs here: boot0, lo$/);
  });

  it('without a loadable libpcap: a reason naming it and the package to install, and the process carries on', async () => {
    const libpcap = /libpcap\S* => (\S+)/.exec(execFileSync('ldd', [join(bundleDir, 'cap.node')], { encoding: 'utf8' }))?.[1];
    expect(libpcap, 'cap.node links libpcap').toBeDefined();
    const run = await probe({ nic: 'lo', timeoutMs: 30_000, hideFile: libpcap! });
    expect(run.code, run.stderr).toBe(0);
    expect(run.result?.frame).toBeNull();
    expect(run.result?.reason).toMatch(/^LLDP capture unavailable: libpcap cannot be loaded \(.*libpcap.*\); install libpcap0\.8$/);
  });

  it('without the privilege to capture: a reason saying what is needed', async () => {
    const pair = vethPair();
    const run = await probe({ ns: pair.hostNs, nic: pair.hostNic, timeoutMs: 30_000, asNobody: true });
    expect(run.code, run.stderr).toBe(0);
    expect(run.result?.frame).toBeNull();
    expect(run.result?.reason).toMatch(/^LLDP capture on boot0: not permitted \(libpcap: .+\); run the agent as root or with CAP_NET_RAW/);
  });
});

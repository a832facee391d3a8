import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ATTEST_LINES } from '../../agent/attest/lines.js';
import { CMDLINE_LINES, NIC_LINES, NO_ATTEMPT } from '../../agent/boot/lines.js';
import { CLOCK_LINES } from '../../agent/clock/lines.js';
import { LLDP_LINES } from '../../agent/lldp/lines.js';
import { matching } from '../line-pattern.js';
import { buildAgent } from '../../scripts/build.js';
import { stringify } from 'yaml';
import { ekHashOfCertificate } from '../../shared/ek-cert/ek-certificate.js';
import { readAttestedMarker } from '../../shared/worker/marker.js';
import { classInputs } from '../install/talos-fixture.js';
import { buildLldpFrame } from '../lldp/frame.js';
import { createVethPair, removeVethPair, sendFrames, waitForCaptureSocket, type VethPair } from '../lldp/netns.js';
import { nodeEntry } from '../node-entry.js';
import { TSX } from '../tsx.js';
import { goldenTpm } from '../swtpm/provision.js';
import { RIG_CATALOGUE, RIG_PORT, startRig, type Rig } from '../swtpm/rig.js';

/**
 * The edge runtime end to end, as hook-bootkit starts it on a HookOS boot (the bundle, dist/agent.mjs
 * with cap.node): a fake /proc/cmdline
 * and /worker, the machine's TPM (swtpm, booted through a recorded firmware log), the boot NIC a
 * veth whose far end plays the switch (LLDP frames), an SNTP server an hour ahead, and fleetd; all
 * inside a network namespace the test makes, so nothing leaves it.
 */
/** The agent as HookOS runs it: the bundle and cap.node beside it. */
let bundleDir = '';
let agentBundle = '';
beforeAll(async () => {
  bundleDir = mkdtempSync(join(tmpdir(), 'fleet-agent-bundle-'));
  agentBundle = await buildAgent(bundleDir);
});
afterAll(() => rmSync(bundleDir, { recursive: true, force: true }));
let rig: Rig | undefined;
let pair: VethPair | undefined;
const children = new Set<ChildProcess>();
afterEach(async () => {
  for (const c of children) c.kill('SIGKILL');
  children.clear();
  if (pair) removeVethPair(pair);
  pair = undefined;
  await rig?.close();
  rig = undefined;
});

/** Starts a process (in `ns` when given) and resolves with its first stdout line matching `ready`. */
function start(argv: string[], ready: RegExp, ns?: string): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const full = ns ? ['ip', 'netns', 'exec', ns, ...argv] : argv;
  const child = spawn(full[0]!, full.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  return new Promise((resolve, reject) => {
    const seen: string[] = [];
    for (const s of [child.stdout!, child.stderr!]) {
      createInterface({ input: s }).on('line', (l) => {
        seen.push(l);
        const m = ready.exec(l);
        if (m) resolve({ child, match: m });
      });
    }
    child.once('exit', (code) => reject(new Error(`${argv.join(' ')} exited ${code}:\n${seen.join('\n')}`)));
  });
}

function run(argv: string[], ns?: string): Promise<{ code: number | null; out: string; err: string }> {
  const full = ns ? ['ip', 'netns', 'exec', ns, ...argv] : argv;
  const child = spawn(full[0]!, full.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => void (out += d));
  child.stderr!.on('data', (d: Buffer) => void (err += d));
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) => child.once('exit', (code) => (clearTimeout(killer), resolve({ code, out, err }))));
}

/** The machine as the agent sees it under --root: /proc, /sys (its NICs are the namespace's own), /worker. */
async function fakeMachine(r: Rig, cmdline: string): Promise<string> {
  const root = join(r.dir, 'machine');
  const security = join(root, 'sys/kernel/security');
  await mkdir(join(security, 'tpm0'), { recursive: true });
  await mkdir(join(root, 'proc/sys/kernel/random'), { recursive: true });
  await mkdir(join(root, 'sys/class/dmi/id'), { recursive: true });
  await mkdir(join(root, 'worker'), { recursive: true });
  await writeFile(join(root, 'proc/cmdline'), `${cmdline}\n`);
  await writeFile(join(root, 'proc/mounts'), `securityfs ${security} securityfs rw,nosuid,nodev,noexec,relatime 0 0\n`);
  await writeFile(join(root, 'proc/sys/kernel/random/boot_id'), `${r.boot.bootId}\n`);
  await writeFile(join(root, 'sys/class/dmi/id/product_serial'), `${r.boot.serial}\n`);
  await writeFile(join(security, 'tpm0/binary_bios_measurements'), r.boot.eventLog!);
  // Inside `ip netns exec`, /sys is the namespace's: the agent sees the veth as its NIC.
  await symlink('/sys/class/net', join(root, 'sys/class/net'));
  // `date -u -s @SECONDS` as the agent calls it, recorded instead of setting this machine's clock.
  await writeFile(join(root, 'date'), `#!/bin/sh\necho "$@" > ${join(root, 'date.args')}\n`);
  await chmod(join(root, 'date'), 0o755);
  return root;
}

const agentArgs = (root: string, r: Rig, extra: string[] = []) => [
  process.execPath,
  agentBundle,
  'edge',
  '--root',
  root,
  '--tpm',
  `unix:${r.swtpm.socketPath}`,
  '--console',
  join(root, 'console'),
  '--date-command',
  join(root, 'date'),
  '--retry-delay',
  '0',
  ...extra,
];

describe('the HookOS entrypoint', () => {
  it("sets the clock, finds the boot NIC, captures the switch's frame, attests, and writes the install code", async () => {
    rig = await startRig();
    // The agent opens the TPM itself, as on a machine.
    await rig.tpm.close();
    pair = createVethPair();
    // fleetd and the NTP server listen on the namespace's own loopback.
    await run(['ip', '-n', pair.hostNs, 'link', 'set', 'lo', 'up']);
    const g = await goldenTpm('a');
    const { dir: inputs } = await classInputs(join(rig.dir, 'talos'));
    const nodes = join(rig.dir, 'fleet-nodes.yaml');
    await writeFile(
      nodes,
      stringify({
        ...RIG_CATALOGUE,
        nodes: {
          'node-1': nodeEntry({
            serial: rig.boot.serial,
            switch_port: RIG_PORT,
            bmc_type: null,
            approved_ek_rsa2048: ekHashOfCertificate(g.ekCertRsaDer),
            approved_ek_eccp256: ekHashOfCertificate(g.ekCertEccDer),
          }),
        },
      }),
    );
    const state = join(rig.dir, 'fleetd');
    const fleetd = await start(
      [
        ...TSX,
        'cli/fleet.ts',
        'serve',
        '--nodes',
        nodes,
        '--state',
        state,
        '--auto-provision',
        '--class-inputs',
        inputs,
        '--listen',
        '127.0.0.1:0',
        '--syslog-listen',
        'off',
      ],
      /listening on (\S+)/,
      pair.hostNs,
    );
    const ntp = await start([...TSX, 'test/agent/sntp-main.ts', '3600000'], /^(\d+)$/, pair.hostNs);
    const mac = (await run(['cat', `/sys/class/net/${pair.hostNic}/address`], pair.hostNs)).out.trim();
    const root = await fakeMachine(
      rig,
      `console=ttyS0 fleet_attest_url=${fleetd.match[1]} fleet_ntp_server=127.0.0.1:${ntp.match[1]} tinkerbell_tls=true BOOTIF=01-${mac.replace(/:/g, '-')} worker_id=${mac}`,
    );
    // A code an earlier boot left: only this boot's pass may leave one.
    await mkdir(join(root, 'worker/fleet'), { recursive: true });
    await writeFile(join(root, 'worker/fleet/install_code'), 'stale');

    const agent = run(agentArgs(root, rig, ['--tries', '1', '--lldp-window', '20']), pair.hostNs);
    // The switch announces itself once the capture listens, as one would every 30 s.
    await waitForCaptureSocket(pair);
    sendFrames(pair, [buildLldpFrame({ chassisMac: '24:5a:4c:00:00:01', portId: RIG_PORT, systemName: 'usw-rack-1', portDescription: 'node-1' })]);
    const { code, out, err } = await agent;

    expect(code, `${out}${err}`).toBe(0);
    const lines = out.trim().split('\n');
    // SNTP runs alongside the boot NIC and the TPM work, so its line may come anywhere before the verdict.
    const clockSet = matching(CLOCK_LINES.set, /127\.0\.0\.1:\d+/, /3599\.9\d\d|3600\.\d{3}/, 'behind', '2');
    const clock = lines.filter((l) => clockSet.test(l));
    expect(clock).toHaveLength(1);
    expect(lines.indexOf(clock[0]!)).toBeLessThan(lines.indexOf(ATTEST_LINES.passed()));
    expect(lines.filter((l) => !clockSet.test(l))).toEqual([
      NIC_LINES.picked(pair.hostNic, mac, 'BOOTIF'),
      LLDP_LINES.frame('usw-rack-1', RIG_PORT, 'node-1'),
      ATTEST_LINES.passed(),
      ATTEST_LINES.codeWritten(),
    ]);
    expect((await readFile(join(root, 'console'), 'utf8')).trim().split('\n')).toEqual(lines);
    const [, , at] = (await readFile(join(root, 'date.args'), 'utf8')).trim().split(' ');
    expect(Math.abs(Number(at!.slice(1)) * 1000 - (Date.now() + 3_600_000))).toBeLessThan(60_000);
    const codePath = join(root, 'worker/fleet/install_code');
    expect(await readFile(codePath, 'utf8')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await stat(codePath)).mode & 0o777).toBe(0o600);
    expect(await readAttestedMarker(join(root, 'worker/fleet'))).toEqual({ bootId: rig.boot.bootId, at: expect.any(String) });
    const shown = await run([...TSX, 'cli/fleet.ts', 'inventory', 'show', 'node-1', '--nodes', nodes, '--state', state]);
    expect(shown.out).toContain(`switch port ${RIG_PORT}`);
    expect(shown.out).toContain(`MAC ${mac}`);
  });

  it('without a verifier URL: says so, removes a code an earlier boot left, and exits 0 so tink-agent starts', async () => {
    rig = await startRig();
    await rig.tpm.close();
    const root = await fakeMachine(rig, 'console=ttyS0 BOOTIF=01-52-54-00-12-34-56');
    await mkdir(join(root, 'worker/fleet'), { recursive: true });
    await writeFile(join(root, 'worker/fleet/install_code'), 'stale');
    const { code, out } = await run(agentArgs(root, rig));
    expect(code).toBe(0);
    expect(out.trim().split('\n')).toEqual([CMDLINE_LINES.noAttestUrl(), CMDLINE_LINES.noNtpServer(), ATTEST_LINES.noVerdict(NO_ATTEMPT.noAttestUrl())]);
    await expect(stat(join(root, 'worker/fleet/install_code'))).rejects.toThrow(/ENOENT/);
  });
});

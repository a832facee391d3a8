/**
 * Dockerfile.agent and images/tink-agent-autoid/entrypoint.sh, checked without Docker (no engine runs
 * here): the Dockerfile read statically, and the entrypoint run under sh with a fake agent,
 * tink-agent, /proc and /sys.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAgent } from '../../scripts/build.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const IMAGE = join(REPO, 'images/tink-agent-autoid');
const ENTRYPOINT = join(IMAGE, 'entrypoint.sh');

interface Instruction {
  op: string;
  args: string;
}

/** Dockerfile instructions: continuation lines joined, comments and blank lines dropped. */
function instructions(text: string): Instruction[] {
  const joined = text
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n')
    .replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const [, op, args] = /^\s*(\S+)\s+(.*)$/.exec(l)!;
      return { op: op!.toUpperCase(), args: args!.trim() };
    });
}

const steps = instructions(readFileSync(join(REPO, 'Dockerfile.agent'), 'utf8'));
const args = new Map(steps.filter((s) => s.op === 'ARG').map((s) => s.args.split('=', 2) as [string, string]));
const expand = (s: string) => s.replace(/\$\{(\w+)\}/g, (_, n: string) => args.get(n) ?? '');
const copies = steps
  .filter((s) => s.op === 'COPY')
  .map((s) => {
    const words = s.args.split(/\s+/);
    const flags = words.filter((w) => w.startsWith('--'));
    const paths = words.filter((w) => !w.startsWith('--'));
    return { from: flags.find((f) => f.startsWith('--from='))?.slice(7), sources: paths.slice(0, -1), dest: paths.at(-1)! };
  });

describe('the Dockerfile', () => {
  it('pins every base image to an exact version or a digest', () => {
    const bases = steps.filter((s) => s.op === 'FROM').map((s) => expand(s.args.split(/\s+/)[0]!));
    expect(bases.length).toBeGreaterThan(0);
    for (const image of bases) expect(image, image).toMatch(/(:[^:/]*\d+\.\d+\.\d+[^:/]*|@sha256:[0-9a-f]{64})$/);
  });

  it('runs on the Node major the addon is built against, glibc (not alpine)', () => {
    const node = steps
      .filter((s) => s.op === 'FROM')
      .map((s) => s.args.split(/\s+/)[0]!)
      .find((i) => i.startsWith('node:'))!;
    expect(node).toMatch(new RegExp(`^node:${process.versions.node.split('.')[0]}\\.`));
    expect(node).not.toMatch(/alpine/);
  });

  it('installs libpcap for the LLDP capture', () => {
    expect(steps.some((s) => s.op === 'RUN' && /apt-get install .*\blibpcap0\.8\b/.test(s.args))).toBe(true);
  });

  it('copies only files the repo holds or the agent build makes', async () => {
    // The agent bundle as `npm run build` makes it in dist/, into a temp dir: what lands there.
    const out = await mkdtemp(join(tmpdir(), 'fleet-agent-build-'));
    try {
      await buildAgent(out);
      const made = (await readdir(out)).map((f) => `dist/${f}`);
      const sources = copies.filter((c) => !c.from).flatMap((c) => c.sources);
      for (const src of sources) {
        if (src.startsWith('dist/')) expect(made, src).toContain(src);
        else expect(existsSync(join(REPO, src)), src).toBe(true);
      }
      // Everything the bundle needs at run time goes into the image: the addon too.
      expect(sources).toEqual(expect.arrayContaining(made));
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });

  it('enters through the script that runs the bundle, then tink-agent', () => {
    const entry = steps.filter((s) => s.op === 'ENTRYPOINT');
    expect(entry).toHaveLength(1);
    const argv = JSON.parse(entry[0]!.args) as string[];
    const script = copies.find((c) => c.sources.includes('images/tink-agent-autoid/entrypoint.sh'))!;
    expect(argv).toEqual([script.dest]);
    const bundleDir = copies.find((c) => c.sources.includes('dist/agent.mjs'))!.dest;
    expect(readFileSync(ENTRYPOINT, 'utf8')).toContain(`node ${bundleDir}agent.mjs`);
    expect(copies.find((c) => c.from === 'tink-agent')!.dest).toBe('/usr/local/bin/tink-agent');
  });

  it('holds no secret', () => {
    for (const s of steps.filter((s) => ['ENV', 'ARG', 'LABEL'].includes(s.op))) expect(s.args).not.toMatch(/(token|secret|passw|_key|credential)/i);
    for (const src of copies.flatMap((c) => c.sources)) expect(src).not.toMatch(/\.(pem|key|crt)$|(^|\/)\.env$|id_(rsa|ed25519)/);
  });
});

describe('the entrypoint', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fleet-autoid-'));
    await mkdir(join(dir, 'bin'));
    // The agent fails (its status must not stop tink-agent); tink-agent shows what it was given.
    await writeFile(join(dir, 'bin/node'), '#!/bin/sh\necho "agent: $*"\nexit 1\n');
    await writeFile(join(dir, 'bin/tink-agent'), '#!/bin/sh\necho "tink-agent: WORKER_ID=$WORKER_ID ID=$ID args=$*"\n');
    await chmod(join(dir, 'bin/node'), 0o755);
    await chmod(join(dir, 'bin/tink-agent'), 0o755);
    await mkdir(join(dir, 'net/eno1'), { recursive: true });
    await mkdir(join(dir, 'net/docker0'), { recursive: true });
    await writeFile(join(dir, 'net/eno1/address'), '6c:4b:90:12:34:56\n');
    await writeFile(join(dir, 'net/docker0/address'), '02:42:ac:11:00:01\n');
    const header = 'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n';
    await writeFile(
      join(dir, 'route'),
      `${header}docker0\t000011AC\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0\neno1\t00000000\t0101000A\t0003\t0\t0\t0\t00000000\t0\t0\t0\n`,
    );
    await writeFile(join(dir, 'no-default'), `${header}docker0\t000011AC\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0\n`);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  function run(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile(
        'sh',
        [ENTRYPOINT, '--log-level', '1'],
        { env: { PATH: `${dir}/bin:/usr/bin:/bin`, FLEET_SYS_CLASS_NET: join(dir, 'net'), ...env } },
        (err, stdout, stderr) => resolve({ code: err ? Number(err.code) : 0, stdout, stderr }),
      );
    });
  }

  it("runs the agent, then tink-agent under the default route NIC's MAC even when the agent failed", async () => {
    const r = await run({ FLEET_PROC_NET_ROUTE: join(dir, 'route'), WORKER_ID: '', ID: '' });
    expect(r.stdout.split('\n')).toEqual([
      'agent: /opt/fleet/agent.mjs edge',
      'tink-agent-autoid: the agent ended with status 1; tink-agent starts anyway',
      "tink-agent-autoid: worker id 6c:4b:90:12:34:56, the MAC of eno1 (the default route's NIC)",
      'tink-agent: WORKER_ID=6c:4b:90:12:34:56 ID=6c:4b:90:12:34:56 args=--log-level 1',
      '',
    ]);
    expect(r.code).toBe(0);
  });

  it('keeps the worker_id the command line gave', async () => {
    const r = await run({ FLEET_PROC_NET_ROUTE: join(dir, 'absent'), WORKER_ID: 'aa:bb:cc:dd:ee:ff', ID: 'aa:bb:cc:dd:ee:ff' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('tink-agent: WORKER_ID=aa:bb:cc:dd:ee:ff ID=aa:bb:cc:dd:ee:ff');
  });

  it('with no id to give, says why and does not start tink-agent', async () => {
    const r = await run({ FLEET_PROC_NET_ROUTE: join(dir, 'no-default'), WORKER_ID: '' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no worker_id on the kernel command line and no NIC holds a default route/);
    expect(r.stdout).not.toContain('tink-agent:');
  });
});

/**
 * deploy/systemd/: systemd 252 itself verifies each unit and scores its sandbox, and each unit's
 * command line is read back through the command's own option definitions and config reader, so a
 * renamed option, a credential no option names or a state directory fleetd does not use fails here.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseListenAddress } from '../../verifier/http/listen-address.js';
import type { OptionDef } from '../../shared/options.js';
import { parseServeConfig, type ServeConfig } from '../../verifier/config/serve-config.js';
import { SERVE_OPTIONS } from '../../verifier/config/serve-options.js';
import { parseSyslogConfig, type SyslogCommandConfig } from '../../verifier/config/syslog-config.js';
import { DEFAULT_SYSLOG_LISTEN, SYSLOG_OPTIONS } from '../../verifier/config/syslog-options.js';
import { DEFAULT_JOURNAL_SOCKET } from '../../verifier/syslog/journal-socket.js';
import { credentialsDir, execStart, readEnvironmentFile, readUnitFile, stateRoot, type UnitFile } from './unit-file.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const DIR = join(REPO, 'deploy/systemd');
/** Where the docs install the built package: dist/fleet.mjs and the node_modules it loads. */
const INSTALL = '/opt/fleet';
const NODE = '/usr/bin/node';
const MAX_EXPOSURE = 2.0;

const fleetd = readUnitFile(join(DIR, 'fleetd.service'));
const syslog = readUnitFile(join(DIR, 'fleet-syslog.service'));
const fleetdEnv = readEnvironmentFile(join(DIR, basename(fleetd.get('Service', 'EnvironmentFile') ?? 'missing')));

const UNITS: Array<{ unit: UnitFile; command: string; options: readonly OptionDef[]; env: Record<string, string> }> = [
  { unit: fleetd, command: 'serve', options: SERVE_OPTIONS, env: fleetdEnv },
  { unit: syslog, command: 'syslog', options: SYSLOG_OPTIONS, env: {} },
];

/** The command's own arguments, after `node /opt/fleet/dist/fleet.mjs <command>`. */
const argsOf = (unit: UnitFile, env: Record<string, string>) => execStart(unit, env).slice(3);
const given = (args: string[], name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i < 0 ? undefined : args[i + 1];
};

const scratch = mkdtempSync(join(tmpdir(), 'fleet-units-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/**
 * The unit as systemd-analyze gets it: a copy under its own name whose ExecStart= runs the node
 * running this test (verify refuses a unit whose binary is missing, and this machine's node may
 * live elsewhere than spore's /usr/bin/node). Nothing else is changed.
 */
function analysable(unit: UnitFile, edit: (text: string) => string = (t) => t): string {
  const dir = mkdtempSync(join(scratch, 'unit-'));
  const path = join(dir, unit.name);
  const exec = new RegExp(`^ExecStart=${NODE} `, 'm');
  if (!exec.test(unit.text)) throw new Error(`${unit.name}'s ExecStart= does not run ${NODE}`);
  writeFileSync(path, edit(unit.text.replace(exec, `ExecStart=${process.execPath} `)));
  return path;
}

function analyze(args: string[]): { status: number | null; output: string } {
  const r = spawnSync('systemd-analyze', args, { encoding: 'utf8' });
  if (r.error) throw r.error;
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** The exposure docs/operations.md states for the unit, in its table of the units. */
function documentedExposure(unit: UnitFile): number {
  const docs = readFileSync(join(REPO, 'docs/operations.md'), 'utf8');
  const m = new RegExp(`^\\| \`${unit.name.replace('.', '\\.')}\` \\|.*\\| (\\d+\\.\\d) OK \\|$`, 'm').exec(docs);
  if (!m) throw new Error(`docs/operations.md states no exposure for ${unit.name}`);
  return Number(m[1]);
}

/** How the README names each unit beside its exposure. */
const README_NAME: Record<string, string> = { 'fleetd.service': 'fleetd', 'fleet-syslog.service': 'the syslog receiver' };

/** Ports below 1024 need CAP_NET_BIND_SERVICE; nothing else a unit runs needs a capability. */
const neededCapabilities = (ports: number[]): string[] => (ports.some((p) => p < 1024) ? ['CAP_NET_BIND_SERVICE'] : []);

describe.each(UNITS.map((u) => [u.unit.name, u] as const))('%s', (_name, { unit, command, options, env }) => {
  it('is one systemd-analyze verify has nothing to say about', () => {
    const r = analyze(['verify', analysable(unit)]);
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
  });

  it(`scores at most ${MAX_EXPOSURE} (OK) in systemd-analyze security, the exposure the docs state`, () => {
    const r = analyze(['security', '--offline=true', '--no-pager', analysable(unit)]);
    const m = /Overall exposure level for \S+: (\d+\.\d+) (\w+)/.exec(r.output);
    expect(m, r.output).not.toBeNull();
    const exposure = Number(m![1]);
    expect(exposure).toBeLessThanOrEqual(MAX_EXPOSURE);
    expect(m![2]).toBe('OK');
    expect(exposure, 'docs/operations.md states another exposure').toBe(documentedExposure(unit));
    expect(readFileSync(join(REPO, 'README.md'), 'utf8'), 'the README states another exposure').toContain(`${exposure} for ${README_NAME[unit.name]}`);
  });

  it(`runs the installed bundle's ${command} command`, () => {
    const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { bin: { fleet: string } };
    expect(execStart(unit, env).slice(0, 3)).toEqual([NODE, `${INSTALL}/${pkg.bin.fleet}`, command]);
  });

  it(`passes only options fleet ${command} defines, each once`, () => {
    const flags = argsOf(unit, env).filter((a) => a.startsWith('--'));
    expect(flags.length).toBeGreaterThan(0);
    const defined = new Set(options.map((o) => `--${o.name}`));
    for (const f of flags) expect(defined, `fleet ${command} defines no ${f}`).toContain(f);
    expect(new Set(flags).size, 'an option given twice').toBe(flags.length);
  });

  it('keeps the lines the service cannot do without', () => {
    const s = (key: string) => unit.get('Service', key);
    // journald would suppress what it cannot count against a limit, and fleet cannot see that.
    expect(s('LogRateLimitIntervalSec')).toBe('0');
    expect(s('Restart')).toBe('on-failure');
    // fleet stops its parts on SIGTERM: fleetd's Lease released, the receiver's queue handed to journald.
    expect(s('KillSignal')).toBe('SIGTERM');
    // V8 maps its JIT's code writable, then executable: node aborts at once under MemoryDenyWriteExecute.
    expect(s('MemoryDenyWriteExecute')).toBe('no');
    // fleetd reads /proc/net/tcp (a config's acknowledgement), the receiver /proc/net/udp (the kernel's drops).
    expect(s('ProcSubset') ?? 'all').toBe('all');
    // A call outside the filter fails with EPERM instead of killing node: V8 asks for pkey_alloc, which it does without.
    expect(s('SystemCallErrorNumber')).toBe('EPERM');
    // Without User= or DynamicUser=, a system unit runs as root.
    const user = s('DynamicUser') === 'yes' ? 'a dynamic user' : (s('User') ?? 'root');
    expect(user).not.toMatch(/^(root|0)$/);
  });
});

/** The config the command reads from the unit's command line: a usage error fails the test that asks. */
function serveConfig(args: string[]): ServeConfig {
  const cfg = parseServeConfig(args, fleetdEnv);
  if (cfg === 'help') throw new Error('fleetd.service asks for --help');
  return cfg;
}
function syslogConfig(args: string[]): SyslogCommandConfig {
  const cfg = parseSyslogConfig(args, {});
  if (cfg === 'help') throw new Error('fleet-syslog.service asks for --help');
  return cfg;
}

describe('fleetd.service', () => {
  const args = () => argsOf(fleetd, fleetdEnv);
  const creds = fleetd.all('Service', 'LoadCredential').map((v) => {
    const [id, path] = v.split(':');
    return { id: id!, path: path ?? '' };
  });
  const lab = parse(readFileSync(join(REPO, 'hookos/lab.yaml'), 'utf8')) as { fleet_attest_url: string };

  it("holds a memory ceiling above what fleetd's caps let it hold", () => {
    const max = fleetd.get('Service', 'MemoryMax');
    expect(max).toMatch(/^\d+M$/);
    const mib = 1024 * 1024;
    // The storm's peak resident set, the session table full of the largest sessions, every connection holding a finish body.
    const caps = 128 * mib + 4096 * 42 * 1024 + 1024 * 750 * 1024;
    expect(Number.parseInt(max!, 10) * mib).toBeGreaterThan(caps);
  });

  it("is a command line fleet serve accepts, with the EnvironmentFile's values", () => {
    const cfg = serveConfig(args());
    expect(cfg.inventory.kind).toBe('netbox');
    expect(cfg.reconcile).not.toBeNull();
    expect(cfg.http.tls).not.toBeNull();
  });

  it('keeps its state in its StateDirectory=, which fleet serve --state names', () => {
    expect(fleetd.get('Service', 'StateDirectory')).toBe('fleetd');
    expect(serveConfig(args()).stateDir).toBe(`${stateRoot}/fleetd`);
    expect(fleetd.get('Service', 'StateDirectoryMode')).toBe('0700');
  });

  it('reads every secret from its credentials, and loads no credential it does not read', () => {
    const dir = credentialsDir(fleetd);
    const secrets = ['netbox-token-file', 'kubeconfig', 'target-kubeconfig'].map((o) => given(args(), o));
    for (const s of secrets) expect(s?.startsWith(`${dir}/`), `${s} is not a credential`).toBe(true);
    // The TLS pair is read from its files, so a renewal reaches fleetd without a restart (which drops waiting configs).
    for (const o of ['cert', 'key']) expect(given(args(), o), `--${o}`).toMatch(/^\/etc\/fleetd\/tls\/tls\.(crt|key)$/);
    const named = args()
      .filter((a) => a.startsWith(`${dir}/`))
      .map((a) => a.slice(dir.length + 1));
    expect(creds.map((c) => c.id).sort()).toEqual([...new Set(named)].sort());
    for (const c of creds) expect(c.path, `${c.id} is read from outside /etc/credstore`).toMatch(/^\/etc\/credstore\/fleetd\.[\w.-]+$/);
  });

  it('names, in its EnvironmentFile, every variable its command line uses, and no other', () => {
    expect(fleetd.get('Service', 'EnvironmentFile')).toBe('/etc/fleetd/fleetd.env');
    const used = [...(fleetd.get('Service', 'ExecStart') ?? '').matchAll(/\$\{(\w+)\}/g)].map((m) => m[1]);
    expect(Object.keys(fleetdEnv).sort()).toEqual([...new Set(used)].sort());
  });

  it("answers where HookOS's kernel command line sends the agent, and leaves UDP 514 to fleet-syslog.service", () => {
    const cfg = serveConfig(args());
    const attest = new URL(lab.fleet_attest_url);
    expect(given(args(), 'base-url')).toBe(lab.fleet_attest_url);
    expect(String(cfg.http.listen.port)).toBe(attest.port);
    expect(cfg.syslog.listen).toBeNull();
  });

  it('holds only the capabilities its ports need: none', () => {
    const needed = neededCapabilities([serveConfig(args()).http.listen.port]);
    expect(fleetd.words('Service', 'CapabilityBoundingSet')).toEqual(needed);
    expect(fleetd.words('Service', 'AmbientCapabilities')).toEqual(needed);
  });

  it('runs as the user deploy/systemd/fleet.sysusers creates', () => {
    const root = mkdtempSync(join(scratch, 'sysusers-'));
    mkdirSync(join(root, 'etc'));
    copyFileSync(join(DIR, 'fleet.sysusers'), join(root, 'fleet.conf'));
    const r = spawnSync('systemd-sysusers', [`--root=${root}`, join(root, 'fleet.conf')], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const passwd = readFileSync(join(root, 'etc/passwd'), 'utf8');
    const group = readFileSync(join(root, 'etc/group'), 'utf8');
    expect(passwd).toMatch(new RegExp(`^${fleetd.get('Service', 'User')}:x:\\d+:\\d+:`, 'm'));
    expect(group).toMatch(new RegExp(`^${fleetd.get('Service', 'Group')}:x:\\d+:`, 'm'));
  });
});

describe('fleet-syslog.service', () => {
  const args = () => argsOf(syslog, {});

  it('receives where HookOS sends (UDP 514) and serves its counters on loopback', () => {
    const cfg = syslogConfig(args());
    expect(cfg.listen.port).toBe(parseListenAddress(DEFAULT_SYSLOG_LISTEN).port);
    expect(cfg.metricsListen?.host).toBe('127.0.0.1');
  });

  it('holds only the capabilities its ports need: CAP_NET_BIND_SERVICE, for 514', () => {
    const cfg = syslogConfig(args());
    const needed = neededCapabilities([cfg.listen.port, ...(cfg.metricsListen ? [cfg.metricsListen.port] : [])]);
    expect(needed).toEqual(['CAP_NET_BIND_SERVICE']);
    expect(syslog.words('Service', 'CapabilityBoundingSet')).toEqual(needed);
    expect(syslog.words('Service', 'AmbientCapabilities')).toEqual(needed);
  });

  it("reaches journald's socket through its sandbox", () => {
    expect(syslogConfig(args()).journalSocket).toBe(DEFAULT_JOURNAL_SOCKET);
    expect(syslog.words('Service', 'RestrictAddressFamilies')).toContain('AF_UNIX');
    // A read-only /run (ProtectSystem=strict) still lets a process send to a socket in it; these would hide it.
    for (const key of ['InaccessiblePaths', 'TemporaryFileSystem', 'RootDirectory', 'RootImage', 'BindPaths', 'BindReadOnlyPaths'])
      expect(syslog.all('Service', key), key).toEqual([]);
    expect(syslog.get('Service', 'DynamicUser')).toBe('yes');
  });
});

describe('the analysis itself', () => {
  it('speaks up about a unit systemd would read otherwise than written', () => {
    const r = analyze(['verify', analysable(fleetd, (t) => t.replace('ProtectHome=yes', 'ProtectHome=maybe'))]);
    expect(r.output).toMatch(/ProtectHome|protect home/i);
  });
});

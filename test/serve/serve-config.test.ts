import { describe, expect, it } from 'vitest';
import { parseServeConfig, type ServeConfig } from '../../verifier/config/serve-config.js';
import { SERVE_OPTIONS, serveUsage } from '../../verifier/config/serve-options.js';

const BASE = ['--state', '/var/lib/fleetd', '--nodes', '/etc/fleetd/nodes.yaml'];
const parsed = (args: string[], env: NodeJS.ProcessEnv = {}): ServeConfig => {
  const c = parseServeConfig([...BASE, ...args], env);
  if (c === 'help') throw new Error('asked for help');
  return c;
};

describe("fleet serve's config", () => {
  it("reads the defaults --help states, into each part's typed config", () => {
    const c = parsed([]);
    expect(c.inventory).toEqual({ kind: 'embedded', nodesFile: '/etc/fleetd/nodes.yaml', nodeNetwork: undefined });
    expect(c.http).toMatchObject({
      listen: { host: '127.0.0.1', port: 8443 },
      tls: null,
      metricsFrom: [],
      sessionTtlMs: 60_000,
      groups: { v4: 24, v6: 64 },
      logLevel: 'warn',
    });
    expect(parsed(['--address-group-v4', '20', '--address-group-v6', '48']).http.groups).toEqual({ v4: 20, v6: 48 });
    expect(c.reconcile).toBeNull();
    expect(c.install).toMatchObject({ autoProvision: false, configTtlMs: 3_600_000 });
    expect(c.syslog).toEqual({ listen: '0.0.0.0:514', journalSocket: '/run/systemd/journal/socket', asked: false });
  });

  it('a reconciler only with a kubeconfig, its timings checked together', () => {
    expect(parsed(['--kubeconfig', 'k', '--reconcile-interval', '5', '--lease-duration', '20']).reconcile).toEqual({
      kubeconfig: 'k',
      namespace: 'tinkerbell',
      intervalS: 5,
      leaseS: 20,
      hookosWaitS: 600,
    });
    expect(() => parsed(['--kubeconfig', 'k', '--lease-duration', '30'])).toThrow(
      '--lease-duration (30 s) must be longer than --reconcile-interval (30 s): the holder renews it once a pass',
    );
    expect(() => parsed(['--kubeconfig', 'k', '--hookos-wait', '0'])).toThrow('--hookos-wait must be a positive number of seconds');
  });

  it('an option given beats its environment variable, which beats the default', () => {
    expect(parsed([], { FLEET_CONFIG_TTL: '60' }).install.configTtlMs).toBe(60_000);
    expect(parsed(['--config-ttl', '10'], { FLEET_CONFIG_TTL: '60' }).install.configTtlMs).toBe(10_000);
  });

  it('a syslog receiver named on the command line is asked for; off is none', () => {
    expect(parsed(['--syslog-listen', '127.0.0.1:5514']).syslog).toMatchObject({ listen: '127.0.0.1:5514', asked: true });
    expect(parsed(['--journal-socket', '/tmp/j']).syslog).toMatchObject({ listen: '0.0.0.0:514', journalSocket: '/tmp/j', asked: true });
    expect(parsed(['--syslog-listen', 'off']).syslog.listen).toBeNull();
  });

  it('refuses before anything opens: usage errors, each with its reason', () => {
    const refused =
      (args: string[], env: NodeJS.ProcessEnv = {}) =>
      () =>
        parseServeConfig(args, env);
    expect(refused(['--nodes', 'n'])).toThrow(/^--state is required/);
    expect(refused([...BASE, '--cert', 'c'])).toThrow('--cert and --key go together');
    expect(refused([...BASE, '--session-ttl', 'soon'])).toThrow('--session-ttl must be a positive number of seconds');
    expect(refused(BASE, { FLEET_LOG_LEVEL: 'loud' })).toThrow('FLEET_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (not loud)');
    expect(refused([...BASE, '--listen', 'nowhere'])).toThrow();
    expect(refused([...BASE, '--address-group-v4', '33'])).toThrow('--address-group-v4 must be a prefix length from 0 to 32 (not 33)');
    expect(refused([...BASE, '--address-group-v6', '/64'])).toThrow('--address-group-v6 must be a prefix length from 0 to 128 (not /64)');
    expect(refused([...BASE, '--metrics-from', '10.0.9.0/24, 10.0.1.0/'])).toThrow('--metrics-from: 10.0.1.0/ is not an address or an address/prefix');
    expect(refused([...BASE, '--no-such-option'])).toThrow(/no-such-option/);
    for (const f of [refused(['--nodes', 'n']), refused([...BASE, '--cert', 'c'])]) {
      try {
        f();
      } catch (err) {
        expect((err as { code?: string }).code).toBe('usage');
      }
    }
  });

  it('--help lists every option once, with its value and default', () => {
    expect(parseServeConfig(['--help'], {})).toBe('help');
    const usage = serveUsage();
    for (const o of SERVE_OPTIONS)
      expect(
        usage.split('\n').filter((l) => l.startsWith(`  --${o.name}`) && (l === `  --${o.name}` || l[o.name.length + 4] === ' ')),
        o.name,
      ).toHaveLength(1);
    expect(usage).toContain('  --lease-duration SEC\n');
    expect(usage).toContain('(default 60)');
  });
});

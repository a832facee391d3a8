import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { parseCmdline, tokenize } from '../../agent/boot/cmdline.js';
import { kernelCmdline, loadBootConfig } from '../../hookos/boot-params.js';
import { bootkitContainer } from '../../hookos/hook-bootkit.js';
import { FleetError } from '../../shared/errors.js';
import { EXAMPLE_PARAMS, LAB_YAML, labConfig } from './lab.js';

/** The lab config with some fields replaced (or removed, with undefined). */
function load(overrides: Record<string, unknown>, params: ReadonlyMap<string, string> = EXAMPLE_PARAMS) {
  const doc = { ...(parse(LAB_YAML) as Record<string, unknown>), ...overrides };
  for (const [k, v] of Object.entries(overrides)) if (v === undefined) delete doc[k];
  return loadBootConfig(stringify(doc), params, 'test.yaml');
}

function refusal(f: () => unknown): FleetError {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(FleetError);
    expect((err as FleetError).code).toBe('hookos-config');
    return err as FleetError;
  }
  throw new Error('expected a refusal');
}

describe('the lab config', () => {
  it("fills ${SPORE_BOOTSTRAP_IP} and keeps the seed's values", () => {
    const c = labConfig();
    expect(c.syslog_host).toBe('192.0.2.10');
    expect(c.fleet_ntp_server).toBe('192.0.2.10');
    expect(c.uki_url).toBe('http://192.0.2.10/hookos/hookos-folly.efi');
    expect(c.grpc_authority).toBe('enroll.lolwtf.ca:42113');
    expect(c.tinkerbell_tls).toBe(true);
  });

  it("parses back through the agent's own reader with no problem", () => {
    const c = labConfig();
    const { params, problems } = parseCmdline(`${kernelCmdline(c)}\n`);
    expect(problems).toEqual([]);
    expect(params.attestUrl?.href).toBe(new URL(c.fleet_attest_url).href);
    expect(params.ntpServer).toEqual({ host: '192.0.2.10', port: 123 });
    expect(params.tinkerbellTls).toBe(true);
    // The signed line names no machine: the agent takes the NIC with a link (see hookos/ipxe.ts).
    expect(params.bootMac).toBeNull();
    expect(params.workerId).toBeNull();
  });

  it('carries each parameter once, as key=value, one space apart, fleet_ last', () => {
    const line = kernelCmdline(labConfig());
    expect(line).not.toMatch(/ {2}|^ | $|\n/);
    const words = line.split(' ');
    expect(words.every((w) => /^[^=]+=[^=].*$/.test(w))).toBe(true);
    const keys = words.map((w) => w.split('=')[0]).filter((k) => k !== 'console');
    expect(new Set(keys).size).toBe(keys.length);
    expect(words.at(-1)).toMatch(/^fleet_/);
    expect(words).toContain('tinkerbell_insecure_tls=false');
  });

  it('is what hook-bootkit hands tink-agent', () => {
    const c = labConfig();
    const spec = bootkitContainer(`${kernelCmdline(c)}\n`);
    expect(spec.Image).toBe(c.tink_worker_image);
    expect(spec.Env).toContain('TINKERBELL_GRPC_AUTHORITY=enroll.lolwtf.ca:42113');
    expect(spec.Env).toContain('TINKERBELL_TLS=true');
    expect(spec.Env).toContain('TINKERBELL_INSECURE_TLS=false');
    expect(spec.HostConfig).toMatchObject({ Privileged: true, NetworkMode: 'host' });
    expect(spec.HostConfig.Mounts).toContainEqual({ Type: 'bind', Source: '/worker', Target: '/worker' });
  });
});

describe('refusals', () => {
  it.each([
    ['a space', { syslog_host: 'spore bootstrap' }, /syslog_host: "spore bootstrap" holds a space/],
    ['a double quote', { fleet_attest_url: 'https://enroll.lolwtf.ca/"x"' }, /fleet_attest_url: .* holds a quote/],
    ['a single quote', { extra: ["quiet='yes'"] }, /extra: .* holds a quote/],
    ['a $', { extra: ['x=$y'] }, /extra: .* holds a \$/],
    ['an iPXE separator', { extra: ['a=b;c'] }, /holds a ; & or \|/],
    ['a tab', { tink_worker_image: 'ghcr.io/x:1\t' }, /holds a space/],
    ['non-ASCII', { grpc_authority: 'énroll.lolwtf.ca:42113' }, /outside printable ASCII/],
    ['an empty value', { syslog_host: '' }, /syslog_host: "" holds nothing/],
  ])('a value with %s, naming the field', (_what, overrides, message) => {
    expect(refusal(() => load(overrides)).message).toMatch(message);
  });

  it.each([
    [{ fleet_attest_url: 'http://enroll.lolwtf.ca:8443' }, /fleet_attest_url: .* is not https/],
    [{ grpc_authority: 'enroll.lolwtf.ca' }, /grpc_authority: .* is not host:port/],
    [{ fleet_ntp_server: 'spore:99999' }, /fleet_ntp_server: .* is not a host or host:port/],
    [{ syslog_host: 'spore:1514' }, /hook-docker always sends to port 514/],
    [{ tink_worker_image: 'ghcr.io/lolwtf/tink-agent-autoid' }, /names no version/],
    [{ tink_worker_image: 'ghcr.io/lolwtf/tink-agent-autoid:latest' }, /names no version/],
    [{ tinkerbell_tls: 'yes' }, /tinkerbell_tls must be true or false/],
    [{ console: [] }, /console must list at least one/],
    [{ console: ['lp0'] }, /console: lp0 is not a console/],
    [{ extra: ['worker_id=aa:bb:cc:dd:ee:ff'] }, /sets worker_id, which the generator writes itself/],
    [{ extra: ['syslog_host=x'] }, /set it with its own field syslog_host/],
    [{ menu_timeout_s: 5.5 }, /menu_timeout_s must be a whole number/],
    [{ uki_url: 'tftp://spore/hookos.efi' }, /uki_url: .* is not http or https/],
    [{ console: undefined }, /missing console/],
    [{ consoles: ['tty0'] }, /unknown field consoles/],
  ])('%o', (overrides, message) => {
    expect(refusal(() => load(overrides)).message).toMatch(message);
  });

  it('a placeholder left unset, with the --set to give', () => {
    expect(refusal(() => load({}, new Map())).message).toMatch(/names \$\{SPORE_BOOTSTRAP_IP\}; give --set SPORE_BOOTSTRAP_IP=VALUE/);
  });

  it('a --set the config never names (a typo)', () => {
    const params = new Map([...EXAMPLE_PARAMS, ['SPORE_BOOTSTAP_IP', '192.0.2.11']]);
    expect(refusal(() => load({}, params)).message).toMatch(/names no \$\{SPORE_BOOTSTAP_IP\}/);
  });

  it('a placeholder whose value is not one word', () => {
    expect(refusal(() => load({}, new Map([['SPORE_BOOTSTRAP_IP', '192.0.2.10 evil=1']]))).message).toMatch(/holds a space/);
  });

  it('text that is not YAML, or not a mapping', () => {
    expect(refusal(() => loadBootConfig('a: [', EXAMPLE_PARAMS, 'x.yaml')).message).toMatch(/^x\.yaml: not YAML/);
    expect(refusal(() => loadBootConfig('- a', EXAMPLE_PARAMS, 'x.yaml')).message).toMatch(/^x\.yaml: expected a mapping/);
  });
});

describe('any extra parameter', () => {
  it('is refused, or lands in the line as exactly one word the agent reads back', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (key, value) => {
        const param = `x${key}=${value}`;
        let line: string;
        try {
          line = kernelCmdline(load({ extra: [param] }));
        } catch (err) {
          return err instanceof FleetError && err.code === 'hookos-config';
        }
        return tokenize(line).some(([k, v]) => `${k}=${v}` === param) && line.split(' ').includes(param);
      }),
      { numRuns: 300 },
    );
  });
});

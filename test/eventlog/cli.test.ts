import { fleetCli } from '../fleet-cli.js';
import { describe, it } from 'vitest';
import { EXPECTED_PCRS, KEYLIME, TOOLS, prettyYaml } from './fixtures.js';

const fleet = fleetCli;

describe.concurrent('fleet eventlog', () => {
  for (const name of Object.keys(EXPECTED_PCRS)) {
    it(`--json ${name}: tpm2-tools' PCRs and event count`, async ({ expect }) => {
      const run = await fleet('eventlog', '--json', TOOLS + name);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout.trim().split('\n')).toHaveLength(1);
      const report = JSON.parse(run.stdout) as { pcrs: unknown; events: number };
      expect(report.pcrs).toEqual(EXPECTED_PCRS[name]);
      expect(report.events).toBe([...prettyYaml(name).matchAll(/^\s*EventType: /gm)].length);
    });
  }

  const keylime = [
    ['binary_bios_measurements-secureboot', true, 99, ['sha256']],
    ['binary_bios_measurements', false, 121, ['sha1', 'sha256']],
    ['mb_log.b64', true, 102, ['sha256']],
  ] as const;
  for (const [name, secureBoot, events, banks] of keylime) {
    it(`--json ${name}: keylime's Secure Boot state and event count`, async ({ expect }) => {
      const run = await fleet('eventlog', '--json', KEYLIME + name);
      expect(run.code).toBe(0);
      const report = JSON.parse(run.stdout) as { pcrs: Record<string, Record<string, string>>; secureBoot: boolean; events: number };
      expect(report.secureBoot).toBe(secureBoot);
      expect(report.events).toBe(events);
      expect(Object.keys(report.pcrs)).toEqual(banks);
      expect(report.pcrs.sha256!['7']).toMatch(/^[0-9a-f]{64}$/);
    });
  }

  it('prints one line an event, then the PCRs, without --json', async ({ expect }) => {
    const run = await fleet('eventlog', TOOLS + 'event-sd-boot-fedora37.bin');
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines.filter((l) => /^\s+\d+\s+\d+\s+EV_/.test(l))).toHaveLength(28);
    expect(run.stdout).toMatch(/^\s+26\s+5\s+EV_EFI_ACTION\s+d8043d6b7b85ad35\s+Exit Boot Services Invocation$/m);
    expect(run.stdout).toMatch(/^\s+4\s+7\s+EV_EFI_VARIABLE_DRIVER_CONFIG\s+ce9ce386b52e099f\s+SecureBoot \(0 bytes\)$/m);
    expect(run.stdout).toContain(`PCR 12: ${EXPECTED_PCRS['event-sd-boot-fedora37.bin']!.sha256!['12']}`);
    expect(run.stdout).toMatch(/^Secure Boot: disabled$/m);
  });

  const bad = [
    [KEYLIME + 'binary_bios_measurements-bogus', 'eventlog-malformed'],
    [KEYLIME + 'binary_bios_measurements-empty', 'eventlog-empty'],
    [TOOLS + 'specid-vendordata.bin', 'eventlog-malformed'],
    [TOOLS + 'no-such-log.bin', 'eventlog-unreadable'],
  ] as const;
  for (const [file, code] of bad) {
    it(`refuses ${file.split('/').pop()} with one line naming ${code}`, async ({ expect }) => {
      const run = await fleet('eventlog', '--json', file);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr.endsWith('\n')).toBe(true);
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(run.stderr).toContain(`[${code}]`);
      expect(run.stderr).toMatch(/^fleet eventlog: /);
    });
  }

  it('prints usage for a missing FILE', async ({ expect }) => {
    const run = await fleet('eventlog', '--json');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^usage: fleet eventlog/);
  });
});

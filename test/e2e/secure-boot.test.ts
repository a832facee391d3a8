/**
 * A machine booted through Secure Boot: OVMF with Microsoft's keys → Debian's signed shim → signed
 * GRUB → the run's (Debian-signed) kernel and initrd. One boot runs the real agent against the real
 * verifier, and the host checks that the verifier read Secure Boot enabled from the firmware's log,
 * and that the log replays to the guest's PCRs and shows the chain shim → grub → kernel.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ATTEST_LINES } from '../../agent/attest/lines.js';
import { decodeEvent, summarize } from '../../shared/eventlog/decode.js';
import type { EventLog } from '../../shared/eventlog/log.js';
import { secureBootState } from '../../shared/eventlog/secureboot.js';
import { EV_EFI_BOOT_SERVICES_APPLICATION, EV_EFI_VARIABLE_AUTHORITY, EV_IPL } from '../../shared/eventlog/types.js';
import { comparePcrs } from '../../shared/eventlog/verify.js';
import { bootChecked } from './boot-checked.js';
import { bootLog } from './boot-log.js';
import { sha256File } from './disks.js';
import { startPlaceholderHost, type Host } from './host.js';
import { Machine } from './machine.js';
import { e2eRun } from './manifest.js';

const run = e2eRun();
let host: Host | undefined;
afterAll(() => host?.close());

/** The log's events of one type: a variable's name, an IPL's text, else `fleet eventlog`'s summary; and the SHA-256 digest. */
function eventsOf(log: EventLog, type: number): Array<{ pcr: number; text: string; sha256: string }> {
  const bank = log.bankIndex('sha256');
  return Array.from({ length: log.length }, (_, i) => i)
    .filter((i) => log.typeOf(i) === type)
    .map((i) => {
      const d = decodeEvent(log.event(i));
      return {
        pcr: log.pcrOf(i),
        text: d.kind === 'text' ? d.text : d.kind === 'variable' ? d.name : summarize(d),
        sha256: Buffer.from(log.digestOf(i, bank)!).toString('hex'),
      };
    });
}

describe.skipIf(run.skip !== null)('a machine booted through Secure Boot', () => {
  it('attests, and the verifier reads Secure Boot enabled from a log that shows shim → grub → kernel', async () => {
    const m = Machine.create(run, 'secureboot', run.tpm.a, [], 'secure-boot');
    host = await startPlaceholderHost(run, m, { name: 'node-sb', diskSerial: 'E2E-NVME-SB', tpm: run.tpm.a }, true);

    await bootChecked(run, m, 'secure-boot', { LLDP_WINDOW: '10' }, host.services);

    const agent = m.step(1, 'agent');
    expect(agent.rc).toBe(0);
    expect(agent.lines).toContain(ATTEST_LINES.passed());

    // The verifier's reading of the log it was sent: in its audit line and in what it wrote.
    const bootId = m.out(1, 'boot_id')!.trim();
    expect(host.verifier.audited('attest.verdict')).toEqual([expect.objectContaining({ verdict: 'attested', serial: m.serial, secureBoot: true })]);
    const { record } = await host.verifier.show('node-sb');
    expect(record).toMatchObject({ verdict: 'attested', attested: { bootId, secureBoot: true } });

    // The log as the guest read it (the firmware's log is final once boot services exit, so it is
    // the one the agent sent) replays to the PCRs the guest's TPM holds, and says Secure Boot is on.
    const { log, pcrs } = bootLog(m, 1);
    expect(comparePcrs(log, 'sha256', pcrs)).toMatchObject({ ok: true, mismatched: [] });
    expect(secureBootState(log)).toEqual({ enabled: true, problems: [] });

    // Who vouched for each image, in PCR 7: db for shim, shim's own Debian CA (MokListRT) for the rest.
    const authorities = eventsOf(log, EV_EFI_VARIABLE_AUTHORITY);
    expect(authorities.every((a) => a.pcr === 7)).toBe(true);
    expect(authorities.map((a) => a.text)).toEqual(expect.arrayContaining(['db', 'MokListRT']));

    // The chain in PCR 4: shim and grub from the ESP, then the kernel grub loaded (by address).
    const apps = eventsOf(log, EV_EFI_BOOT_SERVICES_APPLICATION);
    expect(apps.every((a) => a.pcr === 4)).toBe(true);
    expect(apps.map((a) => a.text).slice(0, 2)).toEqual(['\\EFI\\BOOT\\BOOTX64.EFI', '\\EFI\\BOOT\\grubx64.efi']);
    expect(apps.slice(2).length).toBeGreaterThan(0);
    expect(apps.slice(2).every((a) => /^image at 0x[0-9a-f]+, \d+ bytes$/.test(a.text))).toBe(true);

    // What grub read (PCR 9: file digests) is the run's kernel and initrd, started with this
    // machine's command line (PCR 8).
    const ipl = eventsOf(log, EV_IPL);
    expect(ipl.filter((e) => e.pcr === 9 && e.text.endsWith('/vmlinuz')).map((e) => e.sha256)).toEqual([sha256File(run.vmlinuz)]);
    expect(ipl.filter((e) => e.pcr === 9 && e.text.endsWith('/initrd.img')).map((e) => e.sha256)).toEqual([sha256File(run.initrd)]);
    const cmdline = ipl.filter((e) => e.pcr === 8 && e.text.startsWith('kernel_cmdline: '));
    expect(cmdline).toHaveLength(1);
    expect(cmdline[0]!.text).toContain(` BOOTIF=01-${m.mac.replace(/:/g, '-')}`);

    // Outside the log: the firmware's SecureBoot variable (attributes, then 1) and the kernel's
    // lockdown, which it turns on only when booted with Secure Boot.
    expect(m.out(1, 'secureboot-var')!.trim().split(/\s+/).at(-1)).toBe('1');
    expect(m.out(1, 'lockdown')!.trim()).toMatch(/\[integrity\]/);
  });
});

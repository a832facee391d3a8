/**
 * A class's measured-boot policy on a real boot of a HookOS UKI: OVMF measures the UKI it loads
 * into PCR 4 with its Authenticode digest, which is what fleet hookos digest prints; a class that
 * lists another image, or requires Secure Boot of a machine that boots without it, has its machine
 * attested and journaled, but given no code, so wipe-disk wipes nothing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { ATTEST_LINES as AGENT_LINES } from '../../agent/attest/lines.js';
import { printed } from '../../images/tink-reprovision-tools/lines/printed.js';
import { SHARED_LINES } from '../../images/tink-reprovision-tools/lines/shared.js';
import { ATTEST_LINES, BOOT_WHY } from '../../verifier/attest/lines.js';
import { fleetCli } from '../fleet-cli.js';
import { bootChecked } from './boot-checked.js';
import { bootLog } from './boot-log.js';
import { PLACEHOLDER_URL, startPlaceholderHost, type Host } from './host.js';
import { Machine } from './machine.js';
import { e2eRun } from './manifest.js';

const run = e2eRun();
let host: Host | undefined;
afterAll(() => host?.close());

const NODE = 'node-measured';
const DISK = 'E2E-NVME-MEASURED';
const ANOTHER_IMAGE = '0'.repeat(64);

describe.skipIf(run.skip !== null)("a class's measured-boot policy", () => {
  it('gives no code to an image it does not list, nor to a boot without the Secure Boot it requires', async () => {
    const m = Machine.create(run, 'measured', run.tpm.a, [{ bus: 'nvme', serial: DISK }]);
    host = await startPlaceholderHost(run, m, { name: NODE, diskSerial: DISK, tpm: run.tpm.a }, true, { hookos_images: [ANOTHER_IMAGE] });
    m.hookosAsUki = true;
    const before = m.diskHashes();

    // Boot 1: the class lists another image. PCR 4 measured the UKI OVMF launched, then the kernel its stub loaded.
    await bootChecked(run, m, 'measured-boot', { DISK_SERIAL: DISK, IMAGE_URL: PLACEHOLDER_URL, LLDP_WINDOW: '10' }, host.services);
    expect(m.step(1, 'agent').lines.at(-1)).toBe(AGENT_LINES.passed());
    // What the operator lists: fleet hookos digest's lines for the UKI (its own digest, its kernel's).
    const digests = (await fleetCli('hookos', 'digest', m.uki)).stdout
      .trim()
      .split('\n')
      .map((l) => l.split(' ')[0]!);
    expect(digests).toHaveLength(2);
    const [uki] = digests;
    const [first] = host.verifier.audited('attest.verdict');
    const pcr4 = Array.from(bootLog(m, 1).log)
      .filter((e) => e.pcr === 4)
      .map((e) => `${e.typeName} ${Buffer.from(e.digests.get('sha256') ?? []).toString('hex')}`)
      .join('; ');
    const images = first!.bootImages as string[];
    expect(first, `PCR 4: ${pcr4}`).toMatchObject({ verdict: 'attested', secureBoot: false });
    // The first image is what the firmware launched: the UKI; every image the boot ran is one fleet hookos digest prints.
    expect(images[0], `PCR 4: ${pcr4}`).toBe(uki);
    expect(digests, `PCR 4: ${pcr4}`).toEqual(expect.arrayContaining(images));
    const why = BOOT_WHY.imageNotListed(uki!, '1', String(images.length));
    const notListed = ATTEST_LINES.bootRefused(NODE, why);
    expect((await host.verifier.show(NODE)).journal).toContainEqual(expect.objectContaining({ kind: notListed.kind, message: notListed.message }));
    expect(host.verifier.audited('attest.install')).toEqual([expect.objectContaining({ issued: false, reason: `no provision: ${why}` })]);
    expect(m.step(1, 'wipe-disk')).toEqual({ rc: 1, lines: [printed('wipe-disk', SHARED_LINES.noInstallCode())] });

    // Boot 2: the operator lists what fleet hookos digest printed and requires Secure Boot, which this firmware has off.
    const file = parse(readFileSync(host.verifier.nodesFile, 'utf8')) as { classes: Record<string, Record<string, unknown>> };
    file.classes.nixos = { ...file.classes.nixos, hookos_images: digests, secure_boot: 'required' };
    writeFileSync(host.verifier.nodesFile, stringify(file));
    await bootChecked(run, m, 'measured-boot', { DISK_SERIAL: DISK, IMAGE_URL: PLACEHOLDER_URL, LLDP_WINDOW: '10' }, host.services);
    expect(m.step(2, 'agent').lines.at(-1)).toBe(AGENT_LINES.passed());
    const secureBootOff = ATTEST_LINES.bootRefused(NODE, BOOT_WHY.secureBootOff());
    expect((await host.verifier.show(NODE)).journal).toContainEqual(expect.objectContaining({ kind: secureBootOff.kind, message: secureBootOff.message }));
    expect(host.verifier.audited('attest.install').at(-1)).toMatchObject({ issued: false, reason: `no provision: ${BOOT_WHY.secureBootOff()}` });
    expect(m.step(2, 'wipe-disk')).toEqual({ rc: 1, lines: [printed('wipe-disk', SHARED_LINES.noInstallCode())] });

    expect(m.diskHashes()).toEqual(before);
  });
});

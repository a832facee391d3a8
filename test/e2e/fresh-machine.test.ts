/**
 * A fresh machine the inventory approves, cabled to its port, with a disk-image provision waiting:
 * one boot runs the agent and the provision-image Template's actions (wipe-disk, image-to-disk,
 * next-boot) on QEMU + OVMF + swtpm, and the host checks what each left behind; then the installed
 * node's first boot takes its seed from fleetd with the reference fetch, and the device is active.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ATTEST_LINES } from '../../agent/attest/lines.js';
import { NIC_LINES, SECURITYFS_LINES } from '../../agent/boot/lines.js';
import { SECURITYFS } from '../../agent/boot/securityfs.js';
import { CLOCK_LINES } from '../../agent/clock/lines.js';
import { LLDP_LINES } from '../../agent/lldp/lines.js';
import { matching } from '../line-pattern.js';
import { comparePcrs } from '../../shared/eventlog/verify.js';
import { IMAGE_LINES } from '../../images/tink-reprovision-tools/lines/image.js';
import { NEXT_BOOT_LINES } from '../../images/tink-reprovision-tools/lines/next-boot.js';
import { printed } from '../../images/tink-reprovision-tools/lines/printed.js';
import { WIPE_LINES } from '../../images/tink-reprovision-tools/lines/wipe.js';
import { usedDisk } from '../actions/disk-images.js';
import { asPrinted } from '../actions/printed-line.js';
import { bootChecked } from './boot-checked.js';
import { bootLog, sha256DigestsIn } from './boot-log.js';
import { sha256File } from './disks.js';
import { nodeEntry, startHost, SWITCH_PORT, type Host } from './host.js';
import { GUEST_FILES_URL, Machine } from './machine.js';
import { e2eRun } from './manifest.js';

const run = e2eRun();
let host: Host | undefined;
afterAll(() => host?.close());

describe.skipIf(run.skip !== null)('a fresh approved machine', () => {
  it('attests, wipes exactly its declared NVMe disk, writes the image, and sets the next boot', async () => {
    const m = Machine.create(run, 'fresh', run.tpm.a, [
      { bus: 'nvme', serial: 'E2E-NVME-FRESH' },
      { bus: 'virtio', serial: 'E2E-OTHER' },
    ]);
    // Its clock starts before the verifier's certificate was made: the agent must set it by SNTP
    // (`clock: set from`), or TLS to the verifier fails.
    m.rtcBase = '2025-06-01T00:00:00';
    const imageFile = join(m.dir, 'nixos.raw');
    await usedDisk(imageFile, 40 << 20);
    const image = readFileSync(imageFile);
    const imageSha = createHash('sha256').update(image).digest('hex');
    const imageUrl = `${GUEST_FILES_URL}/images/nixos.raw`;
    host = await startHost(run, m.dir, {
      nodes: { 'node-fresh': nodeEntry(m.serial, 'E2E-NVME-FRESH', 'nixos', run.tpm.a) },
      classes: { nixos: { payload: 'nixos-image', image_url: imageUrl, image_sha256: imageSha } },
      files: { '/images/nixos.raw': image },
      lldp: true,
    });
    const before = m.diskHashes();

    await bootChecked(
      run,
      m,
      'fresh-machine',
      {
        DISK_SERIAL: 'E2E-NVME-FRESH',
        IMAGE_URL: imageUrl,
        IMAGE_SHA256: imageSha,
        SEED_URL: 'https://10.0.2.100/v1/seed',
        NODE: 'node-fresh',
        OS: 'nixos-image',
        LLDP_WINDOW: '10',
      },
      host.services,
    );

    // The agent: clock, boot NIC, the switch's frame, a pass and a code.
    const agent = m.step(1, 'agent');
    expect(agent.rc).toBe(0);
    expect(agent.lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(matching(CLOCK_LINES.set, /10\.0\.2\.2:\d+/, /\d+\.\d{3}/, 'behind', /\d+/)),
        SECURITYFS_LINES.mounted(SECURITYFS),
        NIC_LINES.picked('eth0', m.mac, 'BOOTIF'),
        LLDP_LINES.frame('00:35:35:35:35:35', SWITCH_PORT, ''),
      ]),
    );
    expect(agent.lines.slice(-2)).toEqual([ATTEST_LINES.passed(), ATTEST_LINES.codeWritten()]);
    const codePath = join(m.share, 'worker/fleet/install_code');
    const code = readFileSync(codePath, 'utf8');
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(statSync(codePath).mode & 0o777).toBe(0o600);

    // The firmware's log as the guest read it replays to the PCRs its TPM holds, and measures the
    // kernel (PCR 4) and its command line and initrd (PCR 9).
    const { log, pcrs } = bootLog(m, 1);
    expect(comparePcrs(log, 'sha256', pcrs)).toMatchObject({ ok: true, mismatched: [] });
    expect(sha256DigestsIn(log, 4).length).toBeGreaterThan(0);
    // OVMF measures the initrd QEMU gave it as the file's SHA-256: this run's own.
    expect(sha256DigestsIn(log, 9)).toContain(sha256File(run.initrd));

    // What the verifier recorded: the MAC, the switch port of the frame, the verdict; one code. The
    // plain firmware runs with Secure Boot off, and the verifier reads it so from the log (the
    // Secure Boot scenario shows the other side).
    const bootId = m.out(1, 'boot_id')!.trim();
    const { record } = await host.verifier.show('node-fresh');
    expect(record).toMatchObject({
      mac: m.mac,
      verdict: 'attested',
      attested: { mac: m.mac, bootId, switchPort: SWITCH_PORT, secureBoot: false, eks: { rsa2048: run.tpm.a.ekHashRsa, eccp256: run.tpm.a.ekHashEcc } },
    });
    expect(host.verifier.audited('attest.verdict')).toEqual([expect.objectContaining({ verdict: 'attested', serial: m.serial, secureBoot: false })]);
    expect(host.verifier.audited('attest.install')).toEqual([expect.objectContaining({ issued: true })]);

    // wipe-disk: the declared disk, found by its serial, after the image URL answered.
    const wipe = m.step(1, 'wipe-disk');
    expect(wipe.rc).toBe(0);
    expect(wipe.lines).toEqual(
      expect.arrayContaining([
        printed('wipe-disk', WIPE_LINES.reportsSerial('/dev/nvme0n1', 'E2E-NVME-FRESH')),
        printed('wipe-disk', WIPE_LINES.imageAnswers(imageUrl)),
        printed('wipe-disk', WIPE_LINES.zeroed('/dev/nvme0n1')),
        printed('wipe-disk', WIPE_LINES.wiped('/dev/nvme0n1', bootId)),
      ]),
    );

    // image-to-disk: the image read back with its own hash; the seed on its ESP.
    const img = m.step(1, 'image-to-disk');
    expect(img.rc).toBe(0);
    expect(img.lines).toContain(printed('image-to-disk', IMAGE_LINES.wrote(String(image.length), '/dev/nvme0n1', imageSha)));
    const disk = readFileSync(m.disks[0]!.file);
    expect(disk.subarray(0, 1 << 20).equals(image.subarray(0, 1 << 20))).toBe(true);
    expect(disk.subarray(disk.length - (1 << 20)).every((b) => b === 0)).toBe(true);
    const seed = JSON.parse(
      execFileSync('mtype', ['-i', `${m.disks[0]!.file}@@${1 << 20}`, '::/fleet-seed.json'], {
        encoding: 'utf8',
        env: { ...process.env, MTOOLS_SKIP_CHECK: '1' },
      }),
    ) as Record<string, unknown>;
    expect(seed).toMatchObject({ seedUrl: 'https://10.0.2.100/v1/seed', node: 'node-fresh', nodeUuid: m.uuid, installCode: code });

    // The installed node's first boot: the reference fetch reads that file from its ESP and takes
    // its seed from fleetd's /v1/seed (10.0.2.100 is fleetd on the host, as guestfwd makes it), once.
    const esp = join(m.dir, 'first-boot-esp');
    mkdirSync(esp);
    writeFileSync(join(esp, 'fleet-seed.json'), JSON.stringify(seed), { mode: 0o600 });
    writeFileSync(join(m.dir, 'product_uuid'), `${m.uuid}\n`);
    const firstBoot = spawnSync(
      'dash',
      [
        fileURLToPath(new URL('../../images/first-boot/fleet-seed-fetch.sh', import.meta.url)),
        '--esp',
        esp,
        '--ca',
        run.tlsCert,
        '--out',
        join(m.dir, 'seed.json'),
        '--uuid-file',
        join(m.dir, 'product_uuid'),
        '--tries',
        '3',
        '--delay',
        '1',
        '--connect-to',
        `10.0.2.100:443:127.0.0.1:${host.verifier.port}`,
      ],
      { encoding: 'utf8', timeout: 30_000 },
    );
    expect(firstBoot.stderr).toBe(`fleet-seed: seed written to ${join(m.dir, 'seed.json')} for node-fresh\n`);
    expect(JSON.parse(readFileSync(join(m.dir, 'seed.json'), 'utf8'))).toMatchObject({
      version: 1,
      hostname: 'node-fresh',
      mac: m.mac,
      nodeUuid: m.uuid,
      class: { name: 'nixos' },
    });
    await new Promise((r) => setTimeout(r, 500)); // the served-once bookkeeping follows the kernel's acknowledgement
    const shown = await host.verifier.show('node-fresh');
    expect(shown.record?.status).toBe('active');
    expect(shown.journal.map((j) => j.message)).toContain('fleetd served the seed of its run to 127.0.0.1');

    // Every other disk is byte for byte what it was.
    expect(m.diskHashes().slice(1)).toEqual(before.slice(1));

    // next-boot: the entry, BootNext and BootOrder, as the firmware's variables now hold them.
    const next = m.step(1, 'next-boot');
    expect(next.rc).toBe(0);
    const entryLine = matching(asPrinted('next-boot', NEXT_BOOT_LINES.entry), /([0-9A-F]{4})/, 'nixos-image', '1', /([0-9a-f-]{36})/, '/dev/nvme0n1');
    const entry = next.lines.map((l) => entryLine.exec(l)).find((e) => e !== null) ?? null;
    expect(entry, next.lines.join('\n')).not.toBeNull();
    const [, num, guid] = entry!;
    const efi = m.step(1, 'efibootmgr');
    expect(efi.rc).toBe(0);
    expect(efi.lines).toContain(`BootNext: ${num}`);
    expect(efi.lines.find((l) => l.startsWith('BootOrder:'))).toMatch(new RegExp(`^BootOrder: ${num}(,|$)`));
    expect(efi.lines).toContainEqual(
      expect.stringMatching(new RegExp(`^Boot${num}\\* fleet nixos-image\\s+HD\\(1,GPT,${guid},.*\\)/File\\(\\\\EFI\\\\BOOT\\\\BOOTX64\\.EFI\\)`, 'i')),
    );
    // ... and OVMF wrote them to the machine's NVRAM file, which outlives the boot.
    expect(readFileSync(m.varsFile).includes(Buffer.from('fleet nixos-image', 'utf16le'))).toBe(true);
  });
});

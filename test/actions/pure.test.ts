import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ACTIONS } from '../../images/tink-reprovision-tools/actions.js';
import { crc32 } from '../../images/tink-reprovision-tools/disk/crc32.js';
import { parseGptEntries, parseGptHeader, PART_TYPE, type GptPartition } from '../../images/tink-reprovision-tools/disk/gpt.js';
import { imageFormat } from '../../images/tink-reprovision-tools/image/format.js';
import { debugfsWriteScript } from '../../images/tink-reprovision-tools/image/nocloud.js';
import { chooseRoot } from '../../images/tink-reprovision-tools/image/root.js';
import { declaredSha256 } from '../../images/tink-reprovision-tools/image/sha256.js';
import { installerArgs, installerTail } from '../../images/tink-reprovision-tools/install/installer.js';
import { IMAGE_FAILURES } from '../../images/tink-reprovision-tools/lines/image.js';
import { CODE_BLANK, NOTHING } from '../../images/tink-reprovision-tools/lines/shared.js';
import { LACKS, OS_SHOWN, WIPE_LINES, type Lacking } from '../../images/tink-reprovision-tools/lines/wipe.js';
import { lackRefusal, runLacks, type RunEnv } from '../../images/tink-reprovision-tools/wipe/run-needs.js';
import { ParseError } from '../../shared/errors.js';
import { DISK_IMAGE_PAYLOADS, PAYLOADS } from '../../shared/payloads.js';
import { sparseFile } from './loop.js';

describe('GPT', () => {
  it('reads what sgdisk wrote: types, GUIDs, extents, names', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fleet-gpt-'));
    try {
      const file = join(dir, 'disk.img');
      await sparseFile(file, 32 << 20);
      execFileSync(
        'sgdisk',
        [
          '-n',
          '1:2048:+8M',
          '-t',
          '1:EF00',
          '-c',
          '1:EFI',
          '-u',
          '1:5F3C0A2E-6F4E-4B1A-9A55-0D4F1F0E8C11',
          '-n',
          '3:0:0',
          '-t',
          '3:8304',
          '-c',
          '3:root',
          file,
        ],
        { stdio: 'ignore' },
      );
      const bytes = await readFile(file);
      const header = parseGptHeader(bytes.subarray(0, 8192))!;
      expect(header).toMatchObject({ lbaSize: 512, entriesLba: 2n, entryCount: 128, entrySize: 128 });
      const parts = parseGptEntries(header, bytes.subarray(1024, 1024 + 128 * 128));
      expect(parts.map((p) => [p.index, p.type, p.name])).toEqual([
        [1, PART_TYPE.efiSystem, 'EFI'],
        [3, PART_TYPE.linuxRootX86_64, 'root'],
      ]);
      expect(parts[0]).toMatchObject({ guid: '5f3c0a2e-6f4e-4b1a-9a55-0d4f1f0e8c11', firstLba: 2048n, lastLba: 2048n + 16384n - 1n });
      // A flipped bit in the header, or in the partition array, is caught by its checksum.
      const bad = Buffer.from(bytes.subarray(0, 8192));
      bad[552]! ^= 1;
      expect(() => parseGptHeader(bad)).toThrow(ParseError);
      const array = Buffer.from(bytes.subarray(1024, 1024 + 128 * 128));
      array[40]! ^= 1;
      expect(() => parseGptEntries(header, array)).toThrow(ParseError);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('finds the header at LBA 1 of a 4096-byte-sector disk, and none on a disk without one', () => {
    const head = Buffer.alloc(8192);
    expect(parseGptHeader(head)).toBeNull();
    const h = head.subarray(4096);
    h.write('EFI PART', 0, 'latin1');
    h.writeUInt32LE(0x10000, 8);
    h.writeUInt32LE(92, 12);
    h.writeBigUInt64LE(2n, 72);
    h.writeUInt32LE(4, 80);
    h.writeUInt32LE(128, 84);
    h.writeUInt32LE(crc32(Buffer.alloc(512)), 88);
    h.writeUInt32LE(crc32(h.subarray(0, 92)), 16);
    expect(parseGptHeader(head)).toMatchObject({ lbaSize: 4096, entryCount: 4 });
  });

  it('turns any bytes after the signature into a header or a typed error (fuzz)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 92, maxLength: 600 }), (body) => {
        const head = Buffer.alloc(8192);
        Buffer.from(body).copy(head, 512);
        head.write('EFI PART', 512, 'latin1');
        try {
          parseGptHeader(head);
        } catch (err) {
          expect(err).toBeInstanceOf(ParseError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('images', () => {
  it('are told apart by their magic bytes, even when the first chunk is short', () => {
    expect(imageFormat([Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x24])])).toBe('zstd');
    expect(imageFormat([Buffer.from([0xfd, 0x37]), Buffer.from([0x7a, 0x58, 0x5a, 0x00, 0x00])])).toBe('xz');
    expect(imageFormat([Buffer.from([0x1f, 0x8b, 0x08])])).toBe('gzip');
    expect(imageFormat([Buffer.alloc(512)])).toBe('raw');
    expect(imageFormat([])).toBe('raw');
  });

  it('have one root partition: the typed one, else the one ext4 Linux filesystem, else none', () => {
    const p = (index: number, type: string): GptPartition => ({ index, type, guid: '', firstLba: 0n, lastLba: 0n, name: '' });
    const esp = p(1, PART_TYPE.efiSystem);
    expect(chooseRoot([esp, p(2, PART_TYPE.linuxFilesystem), p(3, PART_TYPE.linuxRootX86_64)], new Set([2, 3]))).toMatchObject({ index: 3 });
    expect(chooseRoot([esp, p(2, PART_TYPE.linuxFilesystem), p(3, PART_TYPE.linuxFilesystem)], new Set([3]))).toMatchObject({ index: 3 });
    expect(chooseRoot([esp, p(2, PART_TYPE.linuxFilesystem), p(3, PART_TYPE.linuxFilesystem)], new Set([2, 3]))).toBe(IMAGE_FAILURES.rootCount('2'));
    expect(chooseRoot([esp, p(2, PART_TYPE.linuxRootX86_64)], new Set())).toBe(IMAGE_FAILURES.rootNotExt4('2'));
  });

  it('get their NoCloud seed by a debugfs script that makes each directory once and replaces each file', () => {
    expect(debugfsWriteScript(['meta-data', 'scripts/boot.sh'], '/tmp/s').split('\n')).toEqual([
      'mkdir /var',
      'mkdir /var/lib',
      'mkdir /var/lib/cloud',
      'mkdir /var/lib/cloud/seed',
      'mkdir /var/lib/cloud/seed/nocloud',
      'mkdir /var/lib/cloud/seed/nocloud/scripts',
      'rm /var/lib/cloud/seed/nocloud/meta-data',
      'write /tmp/s/meta-data /var/lib/cloud/seed/nocloud/meta-data',
      'sif /var/lib/cloud/seed/nocloud/meta-data mode 0100600',
      'sif /var/lib/cloud/seed/nocloud/meta-data uid 0',
      'sif /var/lib/cloud/seed/nocloud/meta-data gid 0',
      'rm /var/lib/cloud/seed/nocloud/scripts/boot.sh',
      'write /tmp/s/scripts/boot.sh /var/lib/cloud/seed/nocloud/scripts/boot.sh',
      'sif /var/lib/cloud/seed/nocloud/scripts/boot.sh mode 0100600',
      'sif /var/lib/cloud/seed/nocloud/scripts/boot.sh uid 0',
      'sif /var/lib/cloud/seed/nocloud/scripts/boot.sh gid 0',
      '',
    ]);
  });
});

describe('the Talos installer', () => {
  it('runs privileged with /dev, with talos.config at CONFIG_URL/<code>', () => {
    expect(installerArgs('ghcr.io/siderolabs/installer:v1.9.5', '/dev/nvme0n1', 'https://fleet:8443/v1/config/', 'C0DE')).toEqual([
      'run',
      '--rm',
      '--privileged',
      '--log-driver',
      'none',
      '-v',
      '/dev:/dev',
      'ghcr.io/siderolabs/installer:v1.9.5',
      'install',
      '--disk',
      '/dev/nvme0n1',
      '--platform',
      'metal',
      '--config',
      'https://fleet:8443/v1/config/C0DE',
    ]);
  });

  it('shows its last 20 non-empty lines with the code blanked', () => {
    const lines = [...Array.from({ length: 30 }, (_, i) => `line ${i}`), '', 'talos.config=https://x/C0DE and C0DE again'];
    const tail = installerTail(lines, 'C0DE');
    expect(tail).toHaveLength(20);
    expect(tail[0]).toBe('line 11');
    expect(tail.at(-1)).toBe(`talos.config=https://x/${CODE_BLANK} and ${CODE_BLANK} again`);
  });
});

describe('what a run must give wipe-disk before it wipes', () => {
  /** A lack as the refusal names it: what the action would miss, and its variable. */
  const lack = (l: Lacking) => `${LACKS[l]} (${l})`;
  const none: RunEnv = { INSTALL: '', OS: '', INSTALLER_IMAGE: '', CONFIG_URL: '', IMAGE_URL: '', IMAGE_SHA256: '', SEED_URL: '' };
  const talos: RunEnv = {
    ...none,
    INSTALL: 'true',
    OS: 'talos',
    INSTALLER_IMAGE: 'ghcr.io/siderolabs/installer:v1.9.5',
    CONFIG_URL: 'https://fleet.example/v1/config',
  };
  const image: RunEnv = {
    ...none,
    INSTALL: 'true',
    OS: 'nixos-image',
    IMAGE_URL: 'https://img.example/nixos.raw',
    IMAGE_SHA256: 'c'.repeat(64),
    SEED_URL: 'https://fleet.example/v1/seed',
  };

  it('a Talos provision needs the installer image and the config URL', () => {
    expect(runLacks(talos)).toEqual([]);
    expect(runLacks({ ...talos, CONFIG_URL: '' })).toEqual(['CONFIG_URL']);
    expect(runLacks({ ...talos, INSTALLER_IMAGE: '' })).toEqual(['INSTALLER_IMAGE']);
    expect(runLacks({ ...talos, INSTALLER_IMAGE: '', CONFIG_URL: '' })).toEqual(['INSTALLER_IMAGE', 'CONFIG_URL']);
    // What a disk image needs is no part of a Talos run.
    expect(runLacks({ ...talos, IMAGE_URL: '', IMAGE_SHA256: 'junk', SEED_URL: '' })).toEqual([]);
  });

  it.each(DISK_IMAGE_PAYLOADS)('a %s provision needs the image URL, its sha256 as 64 hex digits, and the seed URL', (os) => {
    const run = { ...image, OS: os };
    expect(runLacks(run)).toEqual([]);
    expect(runLacks({ ...run, IMAGE_URL: '' })).toEqual(['IMAGE_URL']);
    expect(runLacks({ ...run, SEED_URL: '' })).toEqual(['SEED_URL']);
    for (const sha of ['', 'c'.repeat(63), 'c'.repeat(65), 'z'.repeat(64), ` ${'c'.repeat(63)}`])
      expect(runLacks({ ...run, IMAGE_SHA256: sha })).toEqual(['IMAGE_SHA256']);
    // image-to-disk takes the digest in either case: so does wipe-disk.
    expect(runLacks({ ...run, IMAGE_SHA256: 'C'.repeat(64) })).toEqual([]);
    expect(runLacks({ ...run, IMAGE_URL: '', IMAGE_SHA256: '', SEED_URL: '' })).toEqual(['IMAGE_URL', 'IMAGE_SHA256', 'SEED_URL']);
    expect(runLacks({ ...run, INSTALLER_IMAGE: '', CONFIG_URL: '' })).toEqual([]);
  });

  it('a run that installs must name a payload', () => {
    expect(runLacks({ ...talos, OS: '' })).toEqual(['OS']);
    expect(runLacks({ ...image, OS: 'ubuntu-image' })).toEqual(['OS']);
    expect(runLacks({ ...talos, OS: 'TALOS' })).toEqual(['OS']);
  });

  it('a run that installs nothing (a retirement: INSTALL false) needs nothing', () => {
    expect(runLacks({ ...none, INSTALL: 'false' })).toEqual([]);
    expect(runLacks({ ...talos, INSTALL: 'false', CONFIG_URL: '' })).toEqual([]);
    expect(runLacks({ ...image, INSTALL: 'false', SEED_URL: '' })).toEqual([]);
  });

  it('says what is missing, which action needs it, and that nothing was wiped', () => {
    expect(lackRefusal(talos)).toBeNull();
    expect(lackRefusal(image)).toBeNull();
    expect(lackRefusal({ ...none, INSTALL: 'false' })).toBeNull();
    expect(lackRefusal({ ...talos, CONFIG_URL: '' })).toBe(WIPE_LINES.talosLacks(lack('CONFIG_URL')));
    expect(lackRefusal({ ...talos, INSTALLER_IMAGE: '', CONFIG_URL: '' })).toBe(WIPE_LINES.talosLacks(`${lack('INSTALLER_IMAGE')} and ${lack('CONFIG_URL')}`));
    expect(lackRefusal({ ...image, IMAGE_SHA256: 'abc' })).toBe(WIPE_LINES.imageLacks('nixos-image', lack('IMAGE_SHA256')));
    expect(lackRefusal({ ...image, OS: 'cloud-init-nocloud', IMAGE_URL: '', IMAGE_SHA256: '', SEED_URL: '' })).toBe(
      WIPE_LINES.imageLacks('cloud-init-nocloud', `${lack('IMAGE_URL')}, ${lack('IMAGE_SHA256')} and ${lack('SEED_URL')}`),
    );
    expect(lackRefusal({ ...talos, OS: '' })).toBe(WIPE_LINES.noPayload(OS_SHOWN.empty()));
    expect(lackRefusal({ ...talos, OS: 'windows' })).toBe(WIPE_LINES.noPayload(OS_SHOWN.named('windows')));
  });

  it('for any run: refuses exactly when something is missing, only for a run that installs, naming variables its installing action reads (fuzz)', () => {
    const value = fc.constantFrom('', 'x', 'c'.repeat(64), 'C'.repeat(64), 'true', 'false', 'talos', ...PAYLOADS);
    const run = fc.record({ INSTALL: value, OS: value, INSTALLER_IMAGE: value, CONFIG_URL: value, IMAGE_URL: value, IMAGE_SHA256: value, SEED_URL: value });
    fc.assert(
      fc.property(run, (r) => {
        const lacks = runLacks(r);
        const refusal = lackRefusal(r);
        expect(refusal === null).toBe(lacks.length === 0);
        if (refusal) expect(refusal.endsWith(`; ${NOTHING['wipe-disk']}`)).toBe(true);
        if (r.INSTALL !== 'true') expect(lacks).toEqual([]);
        const reads = r.OS === 'talos' ? ACTIONS.install : ACTIONS['image-to-disk'];
        for (const l of lacks) expect(l === 'OS' || (reads as readonly string[]).includes(l)).toBe(true);
        for (const l of lacks) expect(ACTIONS['wipe-disk']).toContain(l);
      }),
    );
  });

  it('reads IMAGE_SHA256 as image-to-disk does: 64 hex digits, lowercased', () => {
    expect(declaredSha256('AB'.repeat(32))).toBe('ab'.repeat(32));
    expect(declaredSha256('ab'.repeat(32))).toBe('ab'.repeat(32));
    expect(declaredSha256('ab'.repeat(31))).toBeNull();
    expect(declaredSha256('')).toBeNull();
  });
});

import { randomBytes } from 'node:crypto';
import { access, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { imageToDisk } from '../../images/tink-reprovision-tools/image/image-to-disk.js';
import { install } from '../../images/tink-reprovision-tools/install/install.js';
import { WIPED_FILE } from '../../images/tink-reprovision-tools/lib/fleet-dir.js';
import { DISK_LINES, WHAT_IS_THERE } from '../../images/tink-reprovision-tools/lines/disk.js';
import { IMAGE_LINES } from '../../images/tink-reprovision-tools/lines/image.js';
import { INSTALL_LINES } from '../../images/tink-reprovision-tools/lines/install.js';
import { printed } from '../../images/tink-reprovision-tools/lines/printed.js';
import { SHARED_LINES, WHY } from '../../images/tink-reprovision-tools/lines/shared.js';
import { LACKS, OS_SHOWN, WIPE_LINES, type Lacking } from '../../images/tink-reprovision-tools/lines/wipe.js';
import { wipeDisk } from '../../images/tink-reprovision-tools/wipe/wipe-disk.js';
import { isRoot, startDockerLab, type DockerLab } from '../docker/lab.js';
import { addDisk, type FakeDisk } from './fake-sysfs.js';
import { Files } from './http.js';
import { sha256sum } from './loop.js';
import { Rig } from './rig.js';

/**
 * Every line wipe-disk refuses with (the runbook's failure table), each on a machine of fake disks:
 * a sysfs tree and a disk file per disk. A refusal leaves every disk byte-identical, writes no wipe
 * record and runs no tool that writes. The installer is pulled by a real engine from a real
 * registry: the tests that reach the pull need root.
 */
const CONFIG_URL = 'https://fleet.example:8443/v1/config';
let docker: DockerLab | undefined;
/** The installer the registry holds; without an engine only the refusals before the pull run, and they never use it. */
const installer = () => docker?.installer.good ?? 'no-engine.invalid/talos/installer:v1.9.5';
let rig: Rig;
let files: Files;
const wipe = (line: string) => printed('wipe-disk', line);
/** A lack as the refusal names it: what the action would miss, and its variable. */
const lack = (l: Lacking) => `${LACKS[l]} (${l})`;
const disks = new Map<string, string>();

beforeAll(async () => {
  if (isRoot) docker = await startDockerLab();
}, 180_000);
afterAll(() => docker?.stop());
beforeEach(async () => {
  rig = await Rig.create({ dockerSocket: docker?.engine.socket });
  files = await new Files().start();
  disks.clear();
});
afterEach(async () => {
  await files.stop();
  await rig.cleanup();
});

/** A fake disk in sysfs and its disk file, 4 MiB of random bytes with a GPT signature. */
async function disk(d: Omit<FakeDisk, 'sizeBytes'>): Promise<string> {
  await addDisk(rig.sys, { ...d, sizeBytes: 4 << 20 });
  const path = join(rig.dir, `${d.name}.img`);
  const bytes = randomBytes(4 << 20);
  bytes.write('EFI PART', 512, 'latin1');
  await writeFile(path, bytes);
  rig.devs.set(path, d.dev);
  disks.set(path, sha256sum(path));
  return path;
}

/** wipe-disk's environment in the provision Template, for a Talos provision. */
const env = (installDisk: string, more: Record<string, string> = {}) => ({
  WIPE: 'true',
  INSTALL_DISK: installDisk,
  INSTALL_DISK_SERIAL: 'S4EVNF0M123456',
  INSTALL: 'true',
  OS: 'talos',
  INSTALLER_IMAGE: installer(),
  CONFIG_URL,
  ...more,
});

/** The seed service's URL as the Template gives it (no code): the test server answers 404 there. */
const seedUrl = () => files.url('/v1/seed');

/** wipe-disk's environment in the provision-image Template, for a disk-image provision. */
const imageEnv = (installDisk: string, imageUrl: string, more: Record<string, string> = {}) => ({
  WIPE: 'true',
  INSTALL_DISK: installDisk,
  INSTALL_DISK_SERIAL: 'S4EVNF0M123456',
  INSTALL: 'true',
  OS: 'nixos-image',
  IMAGE_URL: imageUrl,
  IMAGE_SHA256: 'ab'.repeat(32),
  SEED_URL: seedUrl(),
  ...more,
});

/** wipe-disk's environment in the provision Template for a retirement: install=false, no payload. */
const retireEnv = (installDisk: string) => ({ ...env(installDisk), INSTALL: 'false', OS: '', INSTALLER_IMAGE: '', CONFIG_URL: '' });

async function refused(e: Record<string, string>, lines: string[]): Promise<void> {
  const r = await rig.perform('wipe-disk', wipeDisk, e);
  expect(r.lines).toEqual(lines);
  expect(r.code).toBe(1);
  for (const [path, sum] of disks) expect(sha256sum(path), `${path} changed`).toBe(sum);
  await expect(access(join(rig.fleet, WIPED_FILE))).rejects.toThrow();
  expect(rig.destructiveCalls()).toEqual([]);
}

describe('wipe-disk refuses, touching nothing', () => {
  let nvme: string;
  beforeEach(async () => {
    nvme = await disk({ name: 'nvme0n1', transport: 'nvme', dev: '259:0', serial: 'S4EVNF0M123456' });
    await rig.attest();
  });

  it('without a declared serial', async () => {
    await refused(env(nvme, { INSTALL_DISK_SERIAL: '' }), [wipe(WIPE_LINES.noSerial())]);
  });

  it('in a boot that left no attestation marker, or a marker of another boot', async () => {
    await rig.setBootId('00000000-0000-4000-8000-000000000001');
    await refused(env(nvme), [wipe(WIPE_LINES.notAttested())]);
    await rig.attest({ bootId: '00000000-0000-4000-8000-000000000002' });
    await refused(env(nvme), [wipe(WIPE_LINES.notAttested())]);
  });

  it('without an install code', async () => {
    await rm(join(rig.fleet, 'install_code'));
    await refused(env(nvme), [wipe(SHARED_LINES.noInstallCode())]);
  });

  it('when no disk reports the serial', async () => {
    await refused(env(nvme, { INSTALL_DISK_SERIAL: 'S4EVNF0M999999' }), [wipe(DISK_LINES.noneReports('S4EVNF0M999999'))]);
  });

  it('when the declared path is another disk than the one that reports the serial (slots swapped, a USB disk took its name)', async () => {
    const sata = await disk({ name: 'sda', transport: 'sata', dev: '8:0', serial: 'QM00005' });
    await refused(env(sata), [wipe(DISK_LINES.elsewhere(sata, WHAT_IS_THERE.disk('QM00005'), 'S4EVNF0M123456', 'nvme0n1'))]);
  });

  it('when the disk that reports the serial is removable, or on USB', async () => {
    const stick = await disk({ name: 'sdb', transport: 'usb', dev: '8:16', serial: 'USB-1', removable: true });
    await refused(env(stick, { INSTALL_DISK_SERIAL: 'USB-1' }), [wipe(DISK_LINES.removable('sdb'))]);
    const ssd = await disk({ name: 'sdc', transport: 'usb', dev: '8:32', serial: 'USB-2' });
    await refused(env(ssd, { INSTALL_DISK_SERIAL: 'USB-2' }), [wipe(DISK_LINES.onUsb('sdc'))]);
  });

  it('when more than one disk reports the serial', async () => {
    await disk({ name: 'sda', transport: 'sata', dev: '8:0', serial: 'S4EVNF0M123456' });
    await refused(env(nvme), [wipe(DISK_LINES.manyReport('S4EVNF0M123456'))]);
  });

  it('when the disk is read-only, or RAID, LVM or device-mapper hold it or one of its partitions', async () => {
    const ro = await disk({ name: 'vda', transport: 'virtio', dev: '254:0', serial: 'RO-1', ro: true });
    await refused(env(ro, { INSTALL_DISK_SERIAL: 'RO-1' }), [wipe(DISK_LINES.readOnly(ro))]);
    const held = await disk({ name: 'vdb', transport: 'virtio', dev: '254:16', serial: 'LVM-1', holders: ['dm-0'] });
    await refused(env(held, { INSTALL_DISK_SERIAL: 'LVM-1' }), [wipe(DISK_LINES.held(held, 'dm-0'))]);
    const raid = await disk({
      name: 'vdc',
      transport: 'virtio',
      dev: '254:32',
      serial: 'MD-1',
      partitions: [{ name: 'vdc1', dev: '254:33', holders: ['md127'] }],
    });
    await refused(env(raid, { INSTALL_DISK_SERIAL: 'MD-1' }), [wipe(DISK_LINES.held(raid, 'md127'))]);
  });

  it("when a partition's /dev node is not that partition", async () => {
    const parted = await disk({ name: 'vdz', transport: 'virtio', dev: '254:48', serial: 'P-1', partitions: [{ name: 'vdz1', dev: '254:49' }] });
    await refused(env(parted, { INSTALL_DISK_SERIAL: 'P-1' }), [wipe(WIPE_LINES.notPartition('/dev/vdz1', 'vdz1', '254:49', 'vdz'))]);
  });

  it.skipIf(!isRoot)('when the installer image cannot be pulled: the registry lacks it, or does not answer', async () => {
    const { missing, unreachable } = docker!;
    const found = wipe(WIPE_LINES.reportsSerial(nvme, 'S4EVNF0M123456'));
    await refused(env(nvme, { INSTALLER_IMAGE: missing }), [
      found,
      wipe(WIPE_LINES.cannotPull(missing, `Error response from daemon: manifest for ${missing} not found: manifest unknown: manifest unknown`)),
    ]);
    await refused(env(nvme, { INSTALLER_IMAGE: unreachable }), [
      found,
      wipe(WIPE_LINES.cannotPull(unreachable, 'Error response from daemon: Get "http://127.0.0.1:1/v2/": dial tcp 127.0.0.1:1: connect: connection refused')),
    ]);
  });

  it('when the disk image of a provision-image run does not answer', async () => {
    const e = (url: string) => imageEnv(nvme, url);
    const found = wipe(WIPE_LINES.reportsSerial(nvme, 'S4EVNF0M123456'));
    await refused(e(files.url('/nixos.raw.zst')), [found, wipe(WIPE_LINES.imageUnreachable(files.url('/nixos.raw.zst'), WHY.http('404')))]);
    const gone = await new Files().start();
    await gone.stop();
    await refused(e(gone.url('/nixos.raw.zst')), [found, wipe(WIPE_LINES.imageUnreachable(gone.url('/nixos.raw.zst'), WHY.socket('ECONNREFUSED')))]);
  });

  it('when the seed service of a provision-image run does not answer, or answers 5xx; never asking for the seed itself', async () => {
    files.served.set('/nixos.raw', Buffer.from('image'));
    // The seed under this boot's code: a GET would spend it (fleetd serves it once).
    files.served.set(`/v1/seed/${rig.code}`, Buffer.from('seed'));
    const found = wipe(WIPE_LINES.reportsSerial(nvme, 'S4EVNF0M123456'));
    const answers = wipe(WIPE_LINES.imageAnswers(files.url('/nixos.raw')));
    const gone = await new Files().start();
    await gone.stop();
    const down = gone.url('/v1/seed');
    await refused(imageEnv(nvme, files.url('/nixos.raw'), { SEED_URL: down }), [found, answers, wipe(WIPE_LINES.seedSilent(down, WHY.socket('ECONNREFUSED')))]);
    for (const status of [500, 503]) {
      files.statuses.set('/v1/seed', status);
      await refused(imageEnv(nvme, files.url('/nixos.raw')), [found, answers, wipe(WIPE_LINES.seedSilent(seedUrl(), WHY.http(String(status))))]);
    }
    expect(files.requests.filter((q) => q.path.startsWith('/v1/seed')).map((q) => `${q.method} ${q.path}`)).toEqual(['HEAD /v1/seed', 'HEAD /v1/seed']);
  });
});

/**
 * A run that installs (INSTALL true) but lacks what its installing action needs: wipe-disk refuses
 * it before it looks at a disk, pulls an image or asks a URL, and the action that would have run
 * after the wipe (install for Talos, image-to-disk for a disk image) refuses the same environment.
 */
describe('wipe-disk refuses a run that could not install after the wipe, touching nothing', () => {
  let nvme: string;
  const image = () => files.url('/nixos.raw');
  beforeEach(async () => {
    nvme = await disk({ name: 'nvme0n1', transport: 'nvme', dev: '259:0', serial: 'S4EVNF0M123456' });
    await rig.attest();
    files.served.set('/nixos.raw', Buffer.from('image'));
  });

  async function refusedBeforeAnything(e: Record<string, string>, line: string): Promise<void> {
    await refused(e, [line]);
    expect(rig.calls, 'no installer pull').toEqual([]);
    expect(files.requests, 'no image HEAD').toEqual([]);
  }

  const talos: Array<[string, Record<string, string>, string, string]> = [
    ['no config URL', { CONFIG_URL: '' }, lack('CONFIG_URL'), INSTALL_LINES.noConfigUrl()],
    ['a config URL the hardwareMap lacks', { CONFIG_URL: '<no value>' }, lack('CONFIG_URL'), INSTALL_LINES.noConfigUrl()],
    ['no installer image', { INSTALLER_IMAGE: '' }, lack('INSTALLER_IMAGE'), INSTALL_LINES.noInstaller()],
    ['neither', { INSTALLER_IMAGE: '', CONFIG_URL: '' }, `${lack('INSTALLER_IMAGE')} and ${lack('CONFIG_URL')}`, INSTALL_LINES.noInstaller()],
  ];
  it.each(talos)('a Talos provision with %s', async (_, more, lacks, installSays) => {
    await refusedBeforeAnything(env(nvme, more), wipe(WIPE_LINES.talosLacks(lacks)));
    const later = await rig.perform('install', install, { ...env(nvme, more) });
    expect(later).toEqual({ code: 1, lines: [printed('install', installSays)] });
  });

  const images: Array<[string, string, Record<string, string>, string, string]> = [
    ['nixos-image', 'no sha256', { IMAGE_SHA256: '' }, lack('IMAGE_SHA256'), IMAGE_LINES.badSha256()],
    ['nixos-image', 'a sha256 of 63 hex digits', { IMAGE_SHA256: 'a'.repeat(63) }, lack('IMAGE_SHA256'), IMAGE_LINES.badSha256()],
    ['nixos-image', 'a sha256 that is not hex', { IMAGE_SHA256: 'g'.repeat(64) }, lack('IMAGE_SHA256'), IMAGE_LINES.badSha256()],
    ['alpine-image', 'no seed URL', { SEED_URL: '' }, lack('SEED_URL'), IMAGE_LINES.noSeedUrl()],
    ['cloud-init-nocloud', 'no seed URL', { SEED_URL: '<no value>' }, lack('SEED_URL'), IMAGE_LINES.noSeedUrl()],
    ['nixos-image', 'no image URL', { IMAGE_URL: '' }, lack('IMAGE_URL'), IMAGE_LINES.noImageUrl()],
    [
      'cloud-init-nocloud',
      'none of them',
      { IMAGE_URL: '', IMAGE_SHA256: '', SEED_URL: '' },
      `${lack('IMAGE_URL')}, ${lack('IMAGE_SHA256')} and ${lack('SEED_URL')}`,
      IMAGE_LINES.noImageUrl(),
    ],
  ];
  it.each(images)('%s: a provision with %s', async (os, _, more, lacks, imageSays) => {
    const e = imageEnv(nvme, image(), { OS: os, ...more });
    await refusedBeforeAnything(e, wipe(WIPE_LINES.imageLacks(os, lacks)));
    expect(await rig.perform('image-to-disk', imageToDisk, e)).toEqual({ code: 1, lines: [printed('image-to-disk', imageSays)] });
  });

  it('a run that installs but names no payload: OS empty, or no payload fleet knows', async () => {
    await refusedBeforeAnything(env(nvme, { OS: '' }), wipe(WIPE_LINES.noPayload(OS_SHOWN.empty())));
    await refusedBeforeAnything(env(nvme, { OS: '<no value>' }), wipe(WIPE_LINES.noPayload(OS_SHOWN.empty())));
    await refusedBeforeAnything(imageEnv(nvme, image(), { OS: 'ubuntu-image' }), wipe(WIPE_LINES.noPayload(OS_SHOWN.named('ubuntu-image'))));
    await refusedBeforeAnything(env(nvme, { OS: 'Talos' }), wipe(WIPE_LINES.noPayload(OS_SHOWN.named('Talos'))));
  });
});

describe('wipe-disk without work', () => {
  it('skips a run whose WIPE is not true, and writes nothing', async () => {
    const nvme = await disk({ name: 'nvme0n1', transport: 'nvme', dev: '259:0', serial: 'S4EVNF0M123456' });
    await rig.attest();
    const r = await rig.perform('wipe-disk', wipeDisk, env(nvme, { WIPE: 'false' }));
    expect(r).toEqual({ code: 0, lines: [wipe(WIPE_LINES.skipped('false'))] });
    expect(sha256sum(nvme)).toBe(disks.get(nvme));
    expect(rig.calls).toEqual([]);
  });

  it('checks a provision-image URL by HEAD, or by its first byte where HEAD is refused, and then wipes', async () => {
    const nvme = await disk({ name: 'nvme0n1', transport: 'nvme', dev: '259:0', serial: 'S4EVNF0M123456' });
    await rig.attest();
    files.served.set('/nixos.raw', Buffer.from('image'));
    files.noHead = true;
    const r = await rig.perform('wipe-disk', wipeDisk, imageEnv(nvme, files.url('/nixos.raw')));
    expect(r.lines).toContain(wipe(WIPE_LINES.imageAnswers(files.url('/nixos.raw'))));
    expect(files.requests.filter((q) => q.path === '/nixos.raw').map((q) => q.method)).toEqual(['HEAD', 'GET']);
    expect(r.code).toBe(0);
    expect(sha256sum(nvme)).not.toBe(disks.get(nvme));
  });

  it.each(['nixos-image', 'alpine-image', 'cloud-init-nocloud'])(
    "%s: counts the seed service's 404 for its bare URL as an answer, asks it nothing under the code, and then wipes",
    async (os) => {
      const nvme = await disk({ name: 'nvme0n1', transport: 'nvme', dev: '259:0', serial: 'S4EVNF0M123456' });
      await rig.attest();
      files.served.set('/nixos.raw', Buffer.from('image'));
      files.served.set(`/v1/seed/${rig.code}`, Buffer.from('seed'));
      const r = await rig.perform('wipe-disk', wipeDisk, imageEnv(nvme, files.url('/nixos.raw'), { OS: os }));
      expect(r.code, r.lines.join('\n')).toBe(0);
      expect(r.lines.slice(0, 3)).toEqual([
        wipe(WIPE_LINES.reportsSerial(nvme, 'S4EVNF0M123456')),
        wipe(WIPE_LINES.imageAnswers(files.url('/nixos.raw'))),
        wipe(WIPE_LINES.seedAnswers(seedUrl())),
      ]);
      expect(files.requests).toEqual([
        { method: 'HEAD', path: '/nixos.raw' },
        { method: 'HEAD', path: '/v1/seed' },
      ]);
      expect(sha256sum(nvme)).not.toBe(disks.get(nvme));
    },
  );

  it.skipIf(!isRoot)('asks no seed service for a Talos provision, whatever SEED_URL says', async () => {
    const nvme = await disk({ name: 'nvme0n1', transport: 'nvme', dev: '259:0', serial: 'S4EVNF0M123456' });
    await rig.attest();
    const gone = await new Files().start();
    await gone.stop();
    const r = await rig.perform('wipe-disk', wipeDisk, env(nvme, { SEED_URL: gone.url('/v1/seed') }));
    expect(r.code, r.lines.join('\n')).toBe(0);
    expect(r.lines.join('\n')).not.toContain('seed');
    expect(sha256sum(nvme)).not.toBe(disks.get(nvme));
  });
});

describe('wipe-disk for a run that installs nothing', () => {
  it('wipes for a retirement (INSTALL false, OS empty), which names no payload, and pulls and asks nothing first', async () => {
    const nvme = await disk({ name: 'nvme0n1', transport: 'nvme', dev: '259:0', serial: 'S4EVNF0M123456' });
    await rig.attest();
    const r = await rig.perform('wipe-disk', wipeDisk, retireEnv(nvme));
    expect(r.code, r.lines.join('\n')).toBe(0);
    expect(r.lines[0]).toBe(wipe(WIPE_LINES.reportsSerial(nvme, 'S4EVNF0M123456')));
    expect(r.lines.at(-1)).toBe(wipe(WIPE_LINES.wiped(nvme, rig.bootId)));
    expect(sha256sum(nvme)).not.toBe(disks.get(nvme));
    await expect(access(join(rig.fleet, WIPED_FILE))).resolves.toBeUndefined();
    expect(rig.calls.filter((c) => c.cmd === 'docker')).toEqual([]);
    expect(files.requests).toEqual([]);
  });
});

import { randomBytes } from 'node:crypto';
import { access, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WIPED_FILE } from '../../images/tink-reprovision-tools/lib/fleet-dir.js';
import { wipeDisk } from '../../images/tink-reprovision-tools/wipe/wipe-disk.js';
import { DockerEngine } from '../docker/engine.js';
import { Registry } from '../docker/registry.js';
import { addDisk } from './fake-sysfs.js';
import { sha256sum } from './loop.js';
import { Rig } from './rig.js';

/**
 * wipe-disk's pull of the installer through a real Docker engine (a private dockerd) from a real
 * registry (Debian's docker-registry) on loopback, as HookOS pulls it: the pull the wipe waits
 * for, and the real engine's refusals, each before the first write.
 */
const isRoot = process.getuid?.() === 0;
let engine: DockerEngine;
let registry: Registry;
let installer: string;

beforeAll(async () => {
  if (!isRoot) return;
  [engine, registry] = await Promise.all([DockerEngine.start(), Registry.start()]);
  installer = `${registry.host}/siderolabs/installer:v1.9.5`;
  // No base image can be pulled here: the image is made of this machine's own busybox.
  await engine.importPrograms('fleet-test/installer:v1.9.5', ['/usr/bin/busybox']);
  await engine.docker(['tag', 'fleet-test/installer:v1.9.5', installer]);
  await engine.docker(['push', installer]);
  // The pushed image leaves the engine's cache: the wipe's pull must fetch it from the registry.
  await engine.docker(['image', 'rm', installer, 'fleet-test/installer:v1.9.5']);
}, 180_000);
afterAll(async () => {
  await registry?.stop();
  await engine?.stop();
});

let rig: Rig;
let disk: string;
let before: string;
beforeEach(async () => {
  rig = await Rig.create();
  rig.dockerSocket = engine?.socket;
  await addDisk(rig.sys, { name: 'nvme0n1', transport: 'nvme', dev: '259:0', serial: 'S4EVNF0M123456', sizeBytes: 4 << 20 });
  disk = join(rig.dir, 'nvme0n1.img');
  const bytes = randomBytes(4 << 20);
  bytes.write('EFI PART', 512, 'latin1');
  await writeFile(disk, bytes);
  rig.devs.set(disk, '259:0');
  before = sha256sum(disk);
  await rig.attest();
});
afterEach(() => rig.cleanup());

const env = (image: string) => ({ WIPE: 'true', INSTALL_DISK: disk, INSTALL_DISK_SERIAL: 'S4EVNF0M123456', INSTALL: 'true', OS: 'talos', INSTALLER_IMAGE: image, CONFIG_URL: 'https://fleetd.lab:8443/v1/config' });

describe.skipIf(!isRoot)('the installer pulled by a real engine from a real registry', () => {
  it('pulls the image the registry holds, then wipes: the engine now holds it for install', async () => {
    const r = await rig.perform('wipe-disk', wipeDisk, env(installer));
    expect(r.lines).toContain(`wipe: pulled the installer image ${installer}`);
    expect(r.code).toBe(0);
    expect(sha256sum(disk)).not.toBe(before);
    expect((await engine.docker(['image', 'inspect', '--format', '{{.Id}}', installer])).trim()).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it.each([
    ['an image the registry does not hold', () => `${registry.host}/siderolabs/installer:v9.9.9`, /manifest unknown/],
    ['a registry that does not answer', () => '127.0.0.1:1/siderolabs/installer:v1.9.5', /connection refused/],
  ])('%s: the real engine\'s refusal, in the runbook\'s line, and nothing wiped', async (_n, image, why) => {
    const r = await rig.perform('wipe-disk', wipeDisk, env(image()));
    expect(r.code).toBe(1);
    expect(r.lines.at(-1)).toMatch(new RegExp(`^wipe: the installer image ${image().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} cannot be pulled \\(.*\\); nothing wiped$`));
    expect(r.lines.at(-1)).toMatch(why);
    expect(sha256sum(disk)).toBe(before);
    await expect(access(join(rig.fleet, WIPED_FILE))).rejects.toThrow();
  });
});

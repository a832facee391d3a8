import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { access, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WIPED_FILE } from '../../images/tink-reprovision-tools/lib/fleet-dir.js';
import { readGpt } from '../../images/tink-reprovision-tools/disk/read-gpt.js';
import { install } from '../../images/tink-reprovision-tools/install/install.js';
import { INSTALL_LINES } from '../../images/tink-reprovision-tools/lines/install.js';
import { printed } from '../../images/tink-reprovision-tools/lines/printed.js';
import { WIPE_LINES } from '../../images/tink-reprovision-tools/lines/wipe.js';
import { wipeDisk } from '../../images/tink-reprovision-tools/wipe/wipe-disk.js';
import { isRoot, startDockerLab, type DockerLab } from '../docker/lab.js';
import { addDisk } from './fake-sysfs.js';
import { usedDisk } from './disk-images.js';
import { Loops, mirrorLoop, sha256sum } from './loop.js';
import { matching } from '../line-pattern.js';
import { asPrinted } from './printed-line.js';
import { Rig } from './rig.js';

const installSays = (line: string) => printed('install', line);

/**
 * wipe-disk's pull of the installer through a real Docker engine (a private dockerd) from a real
 * registry (Debian's docker-registry) on loopback, as HookOS pulls it: the pull the wipe waits
 * for, and the real engine's refusals, each before the first write; then install's privileged
 * `docker run` of a real installer image (the installer double's program, with this machine's node
 * and disk tools) on a real disk.
 */
const CONFIG_URL = 'https://fleetd.lab:8443/v1/config';
let docker: DockerLab;

beforeAll(async () => {
  if (isRoot) docker = await startDockerLab();
}, 180_000);
afterAll(() => docker?.stop());

let rig: Rig;
let disk: string;
let before: string;
beforeEach(async () => {
  rig = await Rig.create({ dockerSocket: docker?.engine.socket });
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

const env = (image: string) => ({
  WIPE: 'true',
  INSTALL_DISK: disk,
  INSTALL_DISK_SERIAL: 'S4EVNF0M123456',
  INSTALL: 'true',
  OS: 'talos',
  INSTALLER_IMAGE: image,
  CONFIG_URL: 'https://fleetd.lab:8443/v1/config',
});

describe.skipIf(!isRoot)('the installer pulled by a real engine from a real registry', () => {
  it('pulls the image the registry holds, then wipes: the engine now holds it for install', async () => {
    const installer = docker.installer.good;
    const r = await rig.perform('wipe-disk', wipeDisk, env(installer));
    expect(r.lines).toContain(printed('wipe-disk', WIPE_LINES.pulled(installer)));
    expect(r.code).toBe(0);
    expect(sha256sum(disk)).not.toBe(before);
    expect((await docker.engine.docker(['image', 'inspect', '--format', '{{.Id}}', installer])).trim()).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it.each([
    ['an image the registry does not hold', () => docker.missing, /manifest unknown/],
    ['a registry that does not answer', () => docker.unreachable, /connection refused/],
  ])("%s: the real engine's refusal, in the runbook's line, and nothing wiped", async (_n, image, why) => {
    const r = await rig.perform('wipe-disk', wipeDisk, env(image()));
    expect(r.code).toBe(1);
    expect(r.lines.at(-1)).toMatch(matching(asPrinted('wipe-disk', WIPE_LINES.cannotPull), image(), /.*/));
    expect(r.lines.at(-1)).toMatch(why);
    expect(sha256sum(disk)).toBe(before);
    await expect(access(join(rig.fleet, WIPED_FILE))).rejects.toThrow();
  });
});

describe.skipIf(!isRoot)('install on a real engine: the privileged installer container writes a real disk', () => {
  const loops = new Loops();
  let image: string;
  let broken: string;
  let dev: string;
  let r: Rig;
  const wipeEnv = () => ({
    WIPE: 'true',
    INSTALL_DISK: dev,
    INSTALL_DISK_SERIAL: 'SN-REAL-DOCKER',
    INSTALL: 'true',
    OS: 'talos',
    INSTALLER_IMAGE: image,
    CONFIG_URL,
  });
  const installEnv = () => ({ INSTALL: 'true', INSTALL_DISK: dev, INSTALLER_IMAGE: image, CONFIG_URL });

  beforeAll(async () => {
    ({ good: image, broken } = docker.installer);
    r = await Rig.create({ allowLoop: true, dockerSocket: docker.engine.socket });
    const file = join(r.dir, 'disk.img');
    await usedDisk(file);
    dev = loops.attach(file);
    execFileSync('partx', ['--add', dev]);
    await r.attest();
    await mirrorLoop(r.sys, dev, 'SN-REAL-DOCKER');
  });
  afterAll(async () => {
    loops.detachAll();
    await r?.cleanup();
  });

  it("wipe-disk pulls the installer, install runs it privileged with /dev: Talos's layout on the disk and talos.config on its ESP", async () => {
    const wiped = await r.perform('wipe-disk', wipeDisk, wipeEnv());
    expect(wiped.code, wiped.lines.join('\n')).toBe(0);
    await mirrorLoop(r.sys, dev, 'SN-REAL-DOCKER');
    const installed = await r.perform('install', install, installEnv());
    expect(installed.lines, installed.lines.join('\n')).toContain(installSays(INSTALL_LINES.installed(dev)));
    expect((await readGpt(dev))!.partitions.map((p) => p.name)).toEqual(['EFI', 'META', 'STATE']);
    const cmdline = execFileSync('mtype', ['-i', `${dev}@@${2048 * 512}`, '::/EFI/Talos/cmdline'], {
      encoding: 'utf8',
      env: { ...process.env, MTOOLS_SKIP_CHECK: '1' },
    });
    expect(cmdline).toBe(`talos.platform=metal talos.config=${CONFIG_URL}/${r.code}\n`);
  });

  it('run again in the same boot (the agent restarted): the real container refuses the disk that is not empty, and install says so', async () => {
    await mirrorLoop(r.sys, dev, 'SN-REAL-DOCKER');
    const again = await r.perform('install', install, installEnv());
    expect(again.code).toBe(1);
    expect(again.lines).toContain(installSays(`failed to perform disk operations: disk ${dev} is not empty, skipping install, detected "gpt"`));
    expect(again.lines.at(-1)).toBe(installSays(INSTALL_LINES.installerFailed()));
  });

  it("an installer that fails: the real container's exit and last lines, then install's runbook line", async () => {
    // A new boot whose wipe-disk pulled the broken installer: install runs it, and it fails.
    await r.setBootId(randomUUID());
    await r.attest();
    await mirrorLoop(r.sys, dev, 'SN-REAL-DOCKER');
    expect((await r.perform('wipe-disk', wipeDisk, { ...wipeEnv(), INSTALLER_IMAGE: broken })).code).toBe(0);
    await mirrorLoop(r.sys, dev, 'SN-REAL-DOCKER');
    const failed = await r.perform('install', install, { ...installEnv(), INSTALLER_IMAGE: broken });
    expect(failed.code).toBe(1);
    expect(failed.lines).toContain(installSays('failed to create partitions: failed to write GPT: failed to add partition 1: invalid argument'));
    expect(failed.lines.at(-1)).toBe(installSays(INSTALL_LINES.installerFailed()));
  });
});

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WIPED_FILE } from '../../images/tink-reprovision-tools/lib/fleet-dir.js';
import { DISK_LINES, WHAT_IS_THERE } from '../../images/tink-reprovision-tools/lines/disk.js';
import { printed } from '../../images/tink-reprovision-tools/lines/printed.js';
import { WIPE_LINES } from '../../images/tink-reprovision-tools/lines/wipe.js';
import { wipeDisk } from '../../images/tink-reprovision-tools/wipe/wipe-disk.js';
import { isRoot, startDockerLab, type DockerLab } from '../docker/lab.js';
import { usedDisk } from './disk-images.js';
import { Loops, mirrorLoop, sha256sum } from './loop.js';
import { Rig } from './rig.js';

/**
 * wipe-disk on real block devices (loop devices over sparse files), run twice; the installer it
 * pulls first comes from a real registry through a real engine.
 */
let docker: DockerLab;
/** wipe-disk's environment in the provision Template, for a Talos provision. */
const talosEnv = (disk: string, serial: string) => ({
  WIPE: 'true',
  INSTALL_DISK: disk,
  INSTALL_DISK_SERIAL: serial,
  INSTALL: 'true',
  OS: 'talos',
  INSTALLER_IMAGE: docker.installer.good,
  CONFIG_URL: 'https://fleet.example:8443/v1/config',
});
const MIB = 1 << 20;
const wipe = (line: string) => printed('wipe-disk', line);
const loops = new Loops();
let rig: Rig;
let target: string;
let others: string[];

beforeAll(async () => {
  if (!isRoot) return;
  docker = await startDockerLab();
  rig = await Rig.create({ allowLoop: true, dockerSocket: docker.engine.socket });
  await rig.attest();
  const devs: string[] = [];
  for (const name of ['a', 'b', 'c']) {
    const file = join(rig.dir, `${name}.img`);
    await usedDisk(file);
    const dev = loops.attach(file);
    // This kernel reads no partition table by itself; partx tells it the GPT's partitions.
    execFileSync('partx', ['--add', dev]);
    await mirrorLoop(rig.sys, dev, `DISK-${name.toUpperCase()}`);
    devs.push(dev);
  }
  [target, ...others] = devs as [string, ...string[]];
}, 180_000);
afterAll(async () => {
  loops.detachAll();
  await rig?.cleanup();
  await docker?.stop();
});

async function readAt(dev: string, at: number, len: number): Promise<Buffer> {
  const fh = await open(dev, 'r');
  try {
    const b = Buffer.alloc(len);
    await fh.read(b, 0, len, at);
    return b;
  } finally {
    await fh.close();
  }
}

describe.skipIf(!isRoot)('wipe-disk on a real disk', () => {
  it('wipes the declared disk: signatures, both GPT copies, a discard; other disks stay byte-identical', async () => {
    const before = others.map(sha256sum);
    expect(existsSync(`${target}p2`)).toBe(true);
    expect(spawnSync('blkid', ['-p', `${target}p2`]).status).toBe(0);

    const r = await rig.perform('wipe-disk', wipeDisk, talosEnv(target, 'DISK-A'));
    expect(r.code).toBe(0);
    expect(r.lines[0]).toBe(wipe(WIPE_LINES.reportsSerial(target, 'DISK-A')));
    expect(r.lines).toContain(wipe(WIPE_LINES.pulled(docker.installer.good)));
    expect(await docker.engine.docker(['image', 'ls', '--format', '{{.Repository}}:{{.Tag}}'])).toBe(`${docker.installer.good}\n`);
    // wipefs names what it erased: the ext4 and FAT signatures on the partitions, the GPT and PMBR on the disk.
    expect(r.lines.some((l) => l.startsWith(wipe(`${target}p2: 2 bytes were erased`)) && l.includes('(ext4)'))).toBe(true);
    expect(r.lines.some((l) => l.startsWith(wipe(`${target}: 8 bytes were erased`)) && l.includes('(gpt)'))).toBe(true);
    expect(r.lines).toContain(wipe(WIPE_LINES.zeroed(target)));
    expect(r.lines.at(-1)).toBe(wipe(WIPE_LINES.wiped(target, rig.bootId)));

    expect(execFileSync('wipefs', [target], { encoding: 'utf8' })).toBe('');
    const size = Number(await readFile(`/sys/block/${basename(target)}/size`, 'utf8')) * 512;
    expect((await readAt(target, 0, MIB)).equals(Buffer.alloc(MIB))).toBe(true);
    expect((await readAt(target, size - MIB, MIB)).equals(Buffer.alloc(MIB))).toBe(true);
    // The discard reached the data between the partitions too.
    expect((await readAt(target, 40 * MIB, MIB)).equals(Buffer.alloc(MIB))).toBe(true);
    expect(existsSync(`${target}p2`)).toBe(false);
    expect(others.map(sha256sum)).toEqual(before);
    expect(JSON.parse(await readFile(join(rig.fleet, WIPED_FILE), 'utf8'))).toMatchObject({ bootId: rig.bootId, disk: target, serial: 'DISK-A' });
  });

  it('runs a second time to the same end', async () => {
    const before = others.map(sha256sum);
    await mirrorLoop(rig.sys, target, 'DISK-A');
    const r = await rig.perform('wipe-disk', wipeDisk, talosEnv(target, 'DISK-A'));
    expect(r.code).toBe(0);
    expect(r.lines.at(-1)).toBe(wipe(WIPE_LINES.wiped(target, rig.bootId)));
    expect(execFileSync('wipefs', [target], { encoding: 'utf8' })).toBe('');
    expect(others.map(sha256sum)).toEqual(before);
  });

  it("refuses the loop device named by another disk's serial, and writes nothing", async () => {
    const before = [target, ...others].map(sha256sum);
    const r = await rig.perform('wipe-disk', wipeDisk, talosEnv(target, 'DISK-B'));
    expect(r).toEqual({ code: 1, lines: [wipe(DISK_LINES.elsewhere(target, WHAT_IS_THERE.disk('DISK-A'), 'DISK-B', basename(others[0]!)))] });
    expect([target, ...others].map(sha256sum)).toEqual(before);
  });
});

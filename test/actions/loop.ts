import { execFileSync } from 'node:child_process';
import { mkdir, open, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';

/**
 * Loop devices over sparse files, detached by their own paths (never `losetup -D`: other work on
 * the machine may hold loop devices), and their entries in a fake sysfs.
 */
export class Loops {
  private readonly attached: string[] = [];

  /** Attaches `file` (direct I/O, partition scanning on) and returns /dev/loopN. */
  attach(file: string, opts: { directIo?: boolean } = {}): string {
    const args = ['--find', '--show', '--partscan', ...(opts.directIo === false ? [] : ['--direct-io=on']), file];
    const dev = execFileSync('losetup', args, { encoding: 'utf8' }).trim();
    this.attached.push(dev);
    return dev;
  }

  detachAll(): void {
    for (const dev of this.attached.splice(0)) execFileSync('losetup', ['--detach', dev]);
  }
}

/** A sparse file of `bytes` with `fill` written at the given offsets. */
export async function sparseFile(path: string, bytes: number, fill: Array<[number, Buffer]> = []): Promise<void> {
  await writeFile(path, '');
  execFileSync('truncate', ['-s', String(bytes), path]);
  const fh = await open(path, 'r+');
  for (const [at, data] of fill) await fh.write(data, 0, data.length, at);
  await fh.close();
}

/**
 * Mirrors a loop device's sysfs entry into the fake tree at `sysRoot`, with the serial the loop
 * device lacks: its device number, size, flags and the partitions the kernel has for it now. The
 * kernel here parses no partition tables (no CONFIG_EFI_PARTITION): tests add partitions with
 * `partx --add`, and call this again after an action changed them.
 */
export async function mirrorLoop(sysRoot: string, loopDev: string, serial: string): Promise<void> {
  const name = basename(loopDev);
  const real = join('/sys/block', name);
  const fake = join(sysRoot, 'devices/virtual/block', name);
  await rm(fake, { recursive: true, force: true });
  await mkdir(join(fake, 'holders'), { recursive: true });
  await mkdir(join(fake, 'queue'), { recursive: true });
  for (const f of ['dev', 'size', 'ro', 'removable', 'queue/discard_max_bytes']) await writeFile(join(fake, f), await readFile(join(real, f)));
  await writeFile(join(fake, 'serial'), `${serial}\n`);
  for (const entry of await readdir(real)) {
    const part = await readFile(join(real, entry, 'partition'), 'utf8').catch(() => null);
    if (part === null) continue;
    await mkdir(join(fake, entry, 'holders'), { recursive: true });
    await writeFile(join(fake, entry, 'partition'), part);
    await writeFile(join(fake, entry, 'dev'), await readFile(join(real, entry, 'dev')));
  }
  const link = join(sysRoot, 'block', name);
  await rm(link, { force: true });
  await symlink(relative(join(sysRoot, 'block'), fake), link);
}

/** sha256 of a whole disk or file. */
export function sha256sum(path: string): string {
  return execFileSync('sha256sum', [path], { encoding: 'utf8' }).split(' ')[0]!;
}

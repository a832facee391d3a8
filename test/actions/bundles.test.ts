import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIONS } from '../../images/tink-reprovision-tools/actions.js';
import { buildActions } from '../../images/tink-reprovision-tools/build.js';
import { IMAGE_LINES } from '../../images/tink-reprovision-tools/lines/image.js';
import { INSTALL_LINES } from '../../images/tink-reprovision-tools/lines/install.js';
import { NEXT_BOOT_LINES } from '../../images/tink-reprovision-tools/lines/next-boot.js';
import { printed } from '../../images/tink-reprovision-tools/lines/printed.js';
import { LACKS, WIPE_LINES } from '../../images/tink-reprovision-tools/lines/wipe.js';

/**
 * The bundles as the tools image runs them (`node /opt/fleet/<name>.mjs`): one self-contained file
 * per action of the catalogue, reading its environment. Only what cannot touch this machine is run
 * here: a skip or a refusal before any disk, and never reboot.
 */
let out: string;
beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), 'fleet-bundles-'));
  await buildActions(out);
});
afterAll(() => rm(out, { recursive: true, force: true }));

function run(name: string, env: Record<string, string>): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(out, `${name}.mjs`)], { env: { PATH: process.env.PATH!, ...env } }, (err, stdout) => {
      resolve({ code: err ? Number(err.code) : 0, stdout });
    });
  });
}

/** A bundle's whole stdout: the line, with its action's word. */
const stdout = (action: Parameters<typeof printed>[0], line: string) => `${printed(action, line)}\n`;

describe('the action bundles', () => {
  it('are one file per action, importing nothing but Node itself', async () => {
    expect((await readdir(out)).sort()).toEqual(
      Object.keys(ACTIONS)
        .map((n) => `${n}.mjs`)
        .sort(),
    );
    for (const f of await readdir(out)) {
      const imports = [...(await readFile(join(out, f), 'utf8')).matchAll(/\bfrom\s*"([^"]+)"/g)].map((m) => m[1]);
      for (const i of imports) expect(i, `${f} imports ${i}`).toMatch(/^node:/);
    }
  });

  it('print their lines with their names and exit as the Template expects', async () => {
    expect(await run('wipe-disk', { WIPE: 'false' })).toEqual({ code: 0, stdout: stdout('wipe-disk', WIPE_LINES.skipped('false')) });
    expect(await run('wipe-disk', { WIPE: 'true', INSTALL_DISK: '/dev/sda', INSTALL_DISK_SERIAL: '<no value>' })).toEqual({
      code: 1,
      stdout: stdout('wipe-disk', WIPE_LINES.noSerial()),
    });
    expect(
      await run('wipe-disk', {
        WIPE: 'true',
        INSTALL_DISK: '/dev/sda',
        INSTALL_DISK_SERIAL: 'S4EV',
        INSTALL: 'true',
        OS: 'talos',
        INSTALLER_IMAGE: 'ghcr.io/siderolabs/installer:v1.9.5',
        CONFIG_URL: '<no value>',
      }),
    ).toEqual({
      code: 1,
      stdout: stdout('wipe-disk', WIPE_LINES.talosLacks(`${LACKS.CONFIG_URL} (CONFIG_URL)`)),
    });
    expect(await run('install', { INSTALL: 'false' })).toEqual({
      code: 0,
      stdout: stdout('install', INSTALL_LINES.skipped('false')),
    });
    expect(await run('next-boot', { OS: '' })).toEqual({
      code: 0,
      stdout: stdout('next-boot', NEXT_BOOT_LINES.skipped()),
    });
    expect(await run('image-to-disk', { OS: 'talos' })).toEqual({
      code: 1,
      stdout: stdout('image-to-disk', IMAGE_LINES.notDiskImage('talos')),
    });
  });
});

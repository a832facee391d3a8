import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { machineIO } from '../../images/tink-reprovision-tools/lib/io.js';

let dir: string | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("an action's lines", () => {
  it("go to stdout (Docker's log, syslog in HookOS) and to the console the operator watches", async () => {
    dir = await mkdtemp(join(tmpdir(), 'fleet-console-'));
    const console = join(dir, 'console');
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    machineIO(console).say('wipe: /dev/nvme0n1 reports the serial S4EV1');
    expect(stdout).toHaveBeenCalledWith('wipe: /dev/nvme0n1 reports the serial S4EV1\n');
    expect(await readFile(console, 'utf8')).toBe('wipe: /dev/nvme0n1 reports the serial S4EV1\n');
  });

  it('still reach stdout where the console cannot be written', () => {
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    machineIO('/nonexistent/console').say('install: installed Talos to /dev/nvme0n1');
    expect(stdout).toHaveBeenCalledWith('install: installed Talos to /dev/nvme0n1\n');
  });
});

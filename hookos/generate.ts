/**
 * Everything the boot side needs, from one BootConfig: the UKI's command line, the iPXE menu, the
 * Hardware iPXE script, and the container hook-bootkit will start. `fleet hookos generate` writes
 * them; hookos/generated/ holds them made from hookos/lab.yaml with documentation addresses.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { kernelCmdline, type BootConfig } from './boot-params.js';
import { bootkitContainer } from './hook-bootkit.js';
import { hardwareScript, menuScript } from './ipxe.js';

export interface GeneratedFile {
  name: string;
  contents: string;
}

export function generate(c: BootConfig): GeneratedFile[] {
  const cmdline = kernelCmdline(c);
  return [
    // No trailing newline: ukify and objcopy put the file's bytes into .cmdline as they are.
    { name: 'cmdline.txt', contents: cmdline },
    { name: 'menu.ipxe', contents: menuScript(c, cmdline) },
    { name: 'hardware.ipxe', contents: hardwareScript(c, cmdline) },
    { name: 'tink-agent-autoid.container.json', contents: `${JSON.stringify(bootkitContainer(cmdline), null, 2)}\n` },
  ];
}

export async function writeGenerated(dir: string, files: GeneratedFile[]): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const f of files) await writeFile(join(dir, f.name), f.contents);
}

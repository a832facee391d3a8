/**
 * A Unified Kernel Image: systemd's EFI stub with the kernel, its initrd, its command line and an
 * os-release added as PE sections by objcopy, at the offsets linuxx64.efi.stub(7) documents.
 * objcopy rather than ukify: Debian 12's systemd (252) ships no ukify (it came with 253, and only
 * bookworm-backports packages it), and binutils' objcopy is already on this machine.
 */
import { execFileSync } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The stub's documented section addresses; each part must end before the next begins. */
const LAYOUT = [
  { name: '.osrel', vma: 0x20000 },
  { name: '.cmdline', vma: 0x30000 },
  { name: '.linux', vma: 0x2000000 },
  { name: '.initrd', vma: 0x3000000 },
] as const;

export interface UkiParts {
  /** linuxx64.efi.stub from systemd-boot-efi. */
  stub: string;
  kernel: string;
  initrd: string;
  cmdline: string;
  osRelease: string;
}

/** The end of the stub's own sections, from `objdump -h` (VMA + size of the last one). */
function stubEnd(stub: string): number {
  let end = 0;
  for (const m of execFileSync('objdump', ['-h', stub], { encoding: 'utf8' }).matchAll(/^\s*\d+\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s/gm)) {
    end = Math.max(end, parseInt(m[2]!, 16) + parseInt(m[1]!, 16));
  }
  return end;
}

/** Writes the UKI to `out`, using `workDir` for the small text sections. */
export function buildUki(p: UkiParts, out: string, workDir: string): void {
  const osrel = join(workDir, 'os-release');
  const cmdline = join(workDir, 'cmdline');
  writeFileSync(osrel, p.osRelease);
  writeFileSync(cmdline, p.cmdline);
  const files: Record<(typeof LAYOUT)[number]['name'], string> = { '.osrel': osrel, '.cmdline': cmdline, '.linux': p.kernel, '.initrd': p.initrd };
  // Overlapping sections make the firmware refuse the image (or the stub read garbage).
  let end = stubEnd(p.stub);
  const args: string[] = [];
  for (const { name, vma } of LAYOUT) {
    if (end > vma) throw new Error(`the UKI's ${name} at 0x${vma.toString(16)} would overlap what ends at 0x${end.toString(16)}`);
    args.push('--add-section', `${name}=${files[name]}`, '--change-section-vma', `${name}=0x${vma.toString(16)}`);
    end = vma + statSync(files[name]).size;
  }
  execFileSync('objcopy', [...args, p.stub, out], { stdio: ['ignore', 'ignore', 'pipe'] });
}

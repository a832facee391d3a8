/**
 * The guest's initramfs: busybox-static, the module closure and guest/init.sh, nothing else (the
 * userland is this machine's own, read over 9p). Kept in the cache under a hash of what goes in,
 * so a changed init makes a new one and an unchanged one is reused.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GUEST_MODULES, moduleLoadOrder, type Kernel } from './kernel.js';

const INIT = fileURLToPath(new URL('../guest/init.sh', import.meta.url));

export function prepareInitramfs(kernel: Kernel, cacheDir: string): string {
  const init = readFileSync(INIT);
  const modules = moduleLoadOrder(kernel.modulesDir, GUEST_MODULES);
  const key = createHash('sha256').update(kernel.pkg).update(init).update(modules.join('\n')).digest('hex').slice(0, 16);
  const out = join(cacheDir, `initrd-${key}.cpio`);
  if (existsSync(out)) return out;
  const root = mkdtempSync(join(cacheDir, 'initramfs-'));
  try {
    for (const d of ['bin', 'proc', 'sys', 'dev', 'newroot']) mkdirSync(join(root, d));
    copyFileSync(kernel.busybox, join(root, 'bin/busybox'));
    for (const m of modules) {
      mkdirSync(dirname(join(root, 'lib/modules', m)), { recursive: true });
      copyFileSync(join(kernel.modulesDir, m), join(root, 'lib/modules', m));
    }
    writeFileSync(join(root, 'modules.load'), `${modules.join('\n')}\n`);
    writeFileSync(join(root, 'init'), init);
    chmodSync(join(root, 'init'), 0o755);
    // Uncompressed: the kernel unpacks it faster than zstd would save in reading it.
    execFileSync('sh', ['-c', `cd "$1" && find . | "$2" cpio -o -H newc > "$3"`, 'sh', root, kernel.busybox, `${out}.part`], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    renameSync(`${out}.part`, out);
    // Older inits' initramfs files are of no further use.
    for (const f of readdirSync(cacheDir)) if (/^initrd-[0-9a-f]{16}\.cpio$/.test(f) && join(cacheDir, f) !== out) rmSync(join(cacheDir, f));
    return out;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

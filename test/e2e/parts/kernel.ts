/**
 * The guest's kernel: Debian's own (the package linux-image-amd64 depends on), its modules'
 * dependency table made once with busybox depmod (the package ships none), cached across runs.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dependencyOf, extractPackage } from './debian.js';

export interface Kernel {
  /** The package, e.g. linux-image-6.1.0-57-amd64: the cache key. */
  pkg: string;
  version: string;
  vmlinuz: string;
  /** lib/modules/<version>, with modules.dep. */
  modulesDir: string;
  /** busybox-static's binary, for the initramfs. */
  busybox: string;
}

/**
 * Everything the e2e guest loads: disks of each kind, the NIC, the 9p shares, EFI variables, and
 * what HookOS's Docker engine needs: overlay storage, and its bridge with NAT through iptables
 * (this machine's iptables, nf_tables flavour), so that an action's container reaches the lab.
 * crc32c_generic before nf_tables: libcrc32c asks the crypto API for it, and nothing here can
 * modprobe it on demand.
 */
export const GUEST_MODULES = [
  'virtio_pci',
  'virtio_net',
  'virtio_blk',
  'nvme',
  'xhci_pci',
  'usb_storage',
  'sd_mod',
  '9p',
  '9pnet_virtio',
  'efivarfs',
  'overlay',
  'crc32c_generic',
  'veth',
  'bridge',
  'br_netfilter',
  'nf_tables',
  'nft_compat',
  'nft_chain_nat',
  'nft_masq',
  'nft_ct',
  'nf_nat',
  'nf_conntrack',
  'xt_MASQUERADE',
  'xt_addrtype',
  'xt_conntrack',
  'xt_tcpudp',
  'xt_nat',
];

export function prepareKernel(cacheRoot: string): Kernel {
  const pkg = dependencyOf('linux-image-amd64');
  const dir = join(cacheRoot, pkg);
  const tree = join(dir, 'kernel');
  const bbTree = join(dir, 'busybox-static');
  execFileSync('mkdir', ['-p', dir]);
  if (!existsSync(tree)) extractPackage(pkg, tree, dir);
  if (!existsSync(bbTree)) extractPackage('busybox-static', bbTree, dir);
  const version = readdirSync(join(tree, 'lib/modules'))[0]!;
  const busybox = join(bbTree, 'bin/busybox');
  const modulesDir = join(tree, 'lib/modules', version);
  if (!existsSync(join(modulesDir, 'modules.dep'))) execFileSync(busybox, ['depmod', '-b', tree, version]);
  return { pkg, version, vmlinuz: join(tree, 'boot', `vmlinuz-${version}`), modulesDir, busybox };
}

/**
 * The modules to insmod, dependencies first, as paths under lib/modules/<version>: modules.dep
 * lists each module's whole closure, nearest dependency first, so reversing it gives a load order.
 */
export function moduleLoadOrder(modulesDir: string, names: readonly string[]): string[] {
  const deps = new Map<string, string[]>();
  for (const line of readFileSync(join(modulesDir, 'modules.dep'), 'utf8').split('\n')) {
    const [mod, rest] = line.split(':');
    if (mod && rest !== undefined) deps.set(mod, rest.trim().split(/\s+/).filter(Boolean));
  }
  const byName = new Map([...deps.keys()].map((p) => [p.replace(/^.*\//, '').replace(/\.ko$/, '').replace(/-/g, '_'), p]));
  const order: string[] = [];
  for (const name of names) {
    const path = byName.get(name);
    if (!path) throw new Error(`module ${name} is not in ${modulesDir}/modules.dep`);
    for (const p of [...deps.get(path)!].reverse().concat(path)) if (!order.includes(p)) order.push(p);
  }
  return order;
}

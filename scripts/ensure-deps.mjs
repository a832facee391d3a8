#!/usr/bin/env node
// First-run setup for `npm test`, `npm run demo` and `npm run bench` on a fresh Debian machine:
// installs the npm packages and the Debian packages the tests and demo drive (swtpm, tpm2-tools).
// Plain JS on purpose: on a fresh clone nothing from npm is installed yet. Quiet when all is present.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// command on PATH → Debian package that provides it
const DEBIAN = {
  swtpm: 'swtpm',
  swtpm_setup: 'swtpm-tools',
  swtpm_localca: 'swtpm-tools',
  tpm2_createek: 'tpm2-tools',
  openssl: 'openssl',
  // the Template actions' real-disk tests (test/actions)
  sgdisk: 'gdisk',
  mcopy: 'mtools',
  'mkfs.vfat': 'dosfstools',
  debugfs: 'e2fsprogs',
  zstd: 'zstd',
  xz: 'xz-utils',
  // the syslog receiver's tests: real logger and busybox syslogd output
  logger: 'bsdutils',
  busybox: 'busybox',
  // the seeds' tests: cloud-init's own reader of a NoCloud seed, and the first-boot fetch's tools
  'cloud-init': 'cloud-init',
  jq: 'jq',
  curl: 'curl',
  dash: 'dash',
  // Kubernetes' own CRD API server (built below) stores in etcd
  etcd: 'etcd-server',
  // a real switch daemon sends LLDP in the capture test
  lldpd: 'lldpd',
  // a private Docker engine: its syslog log driver is what HookOS sends an action's output with
  dockerd: 'docker.io',
  // the registry wipe-disk pulls the installer from, on loopback
  'docker-registry': 'docker-registry',
  // a second reader of a PE image's Authenticode digest, beside fleet hookos digest's
  osslsigncode: 'osslsigncode',
};

// The QEMU end-to-end tests (test/e2e, with --e2e): optional, since they skip themselves without
// these. The guest's kernel, busybox-static, shim and GRUB are taken with apt-get download, not installed.
const DEBIAN_E2E = {
  'qemu-system-x86_64': 'qemu-system-x86',
  // the guest runs this machine's userland over 9p: next-boot's real efibootmgr on OVMF's variables
  efibootmgr: 'efibootmgr',
};
const DEBIAN_E2E_FILES = {
  '/usr/share/OVMF/OVMF_CODE_4M.fd': 'ovmf',
};

// a file → the Debian package that provides it (libraries and daemons that are not commands)
const DEBIAN_FILES = {
  // cap (LLDP capture) builds against libpcap's headers during npm ci
  '/usr/include/pcap/pcap.h': 'libpcap-dev',
  // the syslog tests run a private journald
  '/lib/systemd/systemd-journald': 'systemd',
};

function onPath(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

function ensureNpm() {
  const lock = join(root, 'package-lock.json');
  const stamp = join(root, 'node_modules', '.package-lock.json');
  if (existsSync(stamp) && statSync(stamp).mtimeMs >= statSync(lock).mtimeMs) return;
  console.error('setup: installing npm packages (npm ci)');
  execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: root, stdio: 'inherit' });
}

function missingPackages(commands, files) {
  return [
    ...new Set([
      ...Object.entries(commands)
        .filter(([cmd]) => !onPath(cmd))
        .map(([, pkg]) => pkg),
      ...Object.entries(files)
        .filter(([file]) => !existsSync(file))
        .map(([, pkg]) => pkg),
    ]),
  ];
}

function ensureDebian(withE2e) {
  const isRoot = process.getuid?.() === 0;
  const e2e = withE2e ? missingPackages(DEBIAN_E2E, DEBIAN_E2E_FILES) : [];
  if (e2e.length && (!isRoot || !onPath('apt-get'))) {
    console.error(`setup: the QEMU end-to-end tests will skip: missing ${e2e.join(' ')} (as root: apt-get install ${e2e.join(' ')})`);
  }
  const missing = [...missingPackages(DEBIAN, DEBIAN_FILES), ...(isRoot ? e2e : [])];
  if (missing.length === 0) return;
  if (!isRoot || !onPath('apt-get')) {
    console.error(`setup: missing Debian packages ${missing.join(' ')}; install them as root: apt-get install ${missing.join(' ')}`);
    process.exit(1);
  }
  console.error(`setup: installing Debian packages: ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () =>
    spawnSync('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...missing], { env, stdio: ['ignore', 'ignore', 'inherit'] }).status === 0;
  // A fresh machine may have empty package lists: update once, then retry.
  if (!install()) {
    execFileSync('apt-get', ['update', '-q'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    if (!install()) {
      console.error(`setup: apt-get could not install ${missing.join(' ')}`);
      process.exit(1);
    }
  }
}

/**
 * Kubernetes' own CRD API server, which the loop tests run the reconciler against: built once per
 * machine from Debian's packages by test/kube/crd-apiserver/build.sh (about 3 minutes) and
 * kept in $TMPDIR. A build that fails stops the tests, with its output.
 */
function ensureCrdServer() {
  const dir = join(process.env.TMPDIR || tmpdir(), 'fleet-crd-apiserver');
  if (existsSync(join(dir, 'bin', 'crd-apiserver'))) return;
  console.error("setup: building Kubernetes' CRD API server from Debian's packages (once, about 3 minutes)");
  const r = spawnSync('sh', [join(root, 'test', 'kube', 'crd-apiserver', 'build.sh'), dir], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) {
    console.error('setup: building the CRD API server failed (above)');
    process.exit(1);
  }
}

/**
 * Tinkerbell's Template rendering and validation (test/tinkerbell/render), which the Template tests
 * render fleet's Workflows with: built by test/tinkerbell/build.sh from Debian's Go and Sprig
 * packages (about 25 s once) and kept in $TMPDIR, named by its sources' hash so an edit rebuilds.
 * build.sh says so on stderr only when it builds; a build that fails stops the tests, with its output.
 */
function ensureTinkRender() {
  const dir = join(process.env.TMPDIR || tmpdir(), 'fleet-tink-render');
  const r = spawnSync('sh', [join(root, 'test', 'tinkerbell', 'build.sh'), dir], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) {
    console.error('setup: building tink-render failed (above)');
    process.exit(1);
  }
}

/**
 * Debian's chronyd, a real NTP server for the agent's clock test: its package extracted into
 * $TMPDIR (installing it would remove systemd-timesyncd).
 */
function ensureChrony() {
  const dir = join(process.env.TMPDIR || tmpdir(), 'fleet-chrony');
  if (existsSync(join(dir, 'root', 'usr', 'sbin', 'chronyd'))) return;
  console.error("setup: extracting Debian's chrony package for the clock test");
  mkdirSync(dir, { recursive: true });
  const get = () => spawnSync('apt-get', ['download', '-q', 'chrony'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] }).status === 0;
  if (!get()) {
    execFileSync('apt-get', ['update', '-q'], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (!get()) {
      console.error('setup: apt-get could not download chrony');
      process.exit(1);
    }
  }
  const deb = readdirSync(dir).find((f) => f.startsWith('chrony_') && f.endsWith('.deb'));
  execFileSync('dpkg-deb', ['-x', join(dir, deb), join(dir, 'root')]);
}

// Debian first: native npm packages (cap) build against its headers.
ensureDebian(process.argv.includes('--e2e'));
if (process.argv.includes('--e2e')) {
  ensureCrdServer();
  ensureTinkRender();
  ensureChrony();
}
ensureNpm();
// The package.json must still parse: a truncated checkout is a setup problem, say it here.
JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

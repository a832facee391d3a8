// TEST DOUBLE of the docker CLI talking to an engine, for the install and wipe-disk tests (no
// Docker engine runs on these machines). It keeps the engine's state in $FAKE_DOCKER_STATE:
//   registry.json  {"offline"?: true, "images": {"<ref>": "ok" | "broken"}}  what the registry holds
//   pulled/        one file per image in the local cache
//   calls.jsonl    the argv of every call
// `pull` and `run` answer with the engine's words and exit codes (125: docker itself failed).
// `run <image> install ...` plays the Talos installer (entrypoint /bin/installer): it refuses a
// disk that is not empty as the real one does, else writes a small Talos layout (GPT: EFI, META,
// STATE; a FAT on EFI with EFI/BOOT/BOOTX64.EFI and the kernel command line with talos.config).
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, openSync, readFileSync, readSync, closeSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const state = process.env.FAKE_DOCKER_STATE;
const argv = process.argv.slice(2);
const err = (s) => process.stderr.write(`${s}\n`);
const out = (s) => process.stdout.write(`${s}\n`);

if (!state) {
  err('Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?');
  process.exit(1);
}
mkdirSync(join(state, 'pulled'), { recursive: true });
appendFileSync(join(state, 'calls.jsonl'), `${JSON.stringify(argv)}\n`);
const registry = existsSync(join(state, 'registry.json')) ? JSON.parse(readFileSync(join(state, 'registry.json'), 'utf8')) : { images: {} };
const cached = (ref) => existsSync(join(state, 'pulled', encodeURIComponent(ref)));

/** `docker pull` reports on stdout; the pull inside `docker run` on stderr, as the CLI does. */
function pull(ref, quietPrefix = '', say = out) {
  const host = ref.split('/')[0];
  if (registry.offline) return `${quietPrefix}Error response from daemon: Get "https://${host}/v2/": dial tcp: lookup ${host}: no such host`;
  if (!(ref in registry.images)) return `${quietPrefix}Error response from daemon: manifest unknown`;
  const [name, tag = 'latest'] = ref.split(/:(?=[^/]*$)/);
  const fresh = !cached(ref);
  writeFileSync(join(state, 'pulled', encodeURIComponent(ref)), registry.images[ref]);
  say(`${tag}: Pulling from ${name.split('/').slice(1).join('/')}`);
  say(`Digest: sha256:${Buffer.from(ref).toString('hex').padEnd(64, '0').slice(0, 64)}`);
  say(fresh ? `Status: Downloaded newer image for ${ref}` : `Status: Image is up to date for ${ref}`);
  return null;
}

const [command, ...rest] = argv;
if (command === 'pull') {
  const failure = pull(rest[0]);
  if (failure) {
    err(failure);
    process.exit(1);
  }
  out(rest[0]);
  process.exit(0);
}
if (command !== 'run') {
  err(`docker: '${command}' is not a docker command.`);
  process.exit(1);
}

// docker run [OPTIONS] IMAGE [COMMAND] [ARG...]
const opts = { rm: false, privileged: false, logDriver: undefined, volumes: [] };
let i = 0;
for (; i < rest.length && rest[i].startsWith('-'); i++) {
  if (rest[i] === '--rm') opts.rm = true;
  else if (rest[i] === '--privileged') opts.privileged = true;
  else if (rest[i] === '--log-driver') opts.logDriver = rest[++i];
  else if (rest[i] === '-v' || rest[i] === '--volume') opts.volumes.push(rest[++i]);
  else {
    err(`unknown flag: ${rest[i]}\nSee 'docker run --help'.`);
    process.exit(125);
  }
}
const image = rest[i];
const args = rest.slice(i + 1);
if (!cached(image)) {
  err(`Unable to find image '${image}' locally`);
  const failure = pull(image, 'docker: ', err);
  if (failure) {
    err(`${failure}.\nSee 'docker run --help'.`);
    process.exit(125);
  }
}
process.exit(installer(args, readFileSync(join(state, 'pulled', encodeURIComponent(image)), 'utf8')));

function installer(args, behaviour) {
  const log = (s) => err(`2025/03/01 10:00:00 ${s}`);
  const usage = [
    'Usage:', '  installer install [flags]', '', 'Flags:', '  -h, --help   help for install', '', 'Global Flags:',
    '      --config string                  The value of talos.config',
    '      --disk string                    The path to the disk to install to',
    '      --extra-kernel-arg stringArray   Extra argument to pass to the kernel',
    '      --platform string                The value of talos.platform', '',
  ];
  const fail = (message) => {
    err(`Error: ${message}`);
    for (const l of usage) err(l);
    err(message);
    return 1;
  };
  const [sub, ...flags] = args;
  if (sub !== 'install') return fail(`unknown command "${sub}" for "installer"`);
  const o = {};
  for (let k = 0; k < flags.length; k++) {
    const m = /^--(config|disk|platform|extra-kernel-arg)(?:=(.*))?$/.exec(flags[k]);
    if (!m) return fail(`unknown flag: ${flags[k]}`);
    o[m[1]] = m[2] ?? flags[++k];
  }
  log('running Talos installer v1.9.5');
  if (!o.disk) return fail('install disk is required');
  if (o.platform !== 'metal') return fail(`platform mismatch: ${o.platform}`);
  if (!opts.privileged || !opts.volumes.includes('/dev:/dev')) return fail(`failed to open blockdevice ${o.disk}: open ${o.disk}: operation not permitted`);
  if (behaviour === 'broken') {
    log(`kernel command line: talos.platform=${o.platform} talos.config=${o.config}`);
    log('created EFI (C12A7328-F81F-11D2-BA4B-00A0C93EC93B) size 104857600 bytes');
    return fail('failed to create partitions: failed to write GPT: failed to add partition 1: invalid argument');
  }
  const found = probe(o.disk);
  if (found) return fail(`failed to perform disk operations: disk ${o.disk} is not empty, skipping install, detected "${found}"`);
  const sh = (cmd, ...a) => execFileSync(cmd, a, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, MTOOLS_SKIP_CHECK: '1' } });
  sh('sgdisk', '-n', '1:2048:+16M', '-t', '1:EF00', '-c', '1:EFI', '-n', '2:0:+1M', '-t', '2:8300', '-c', '2:META', '-n', '3:0:0', '-t', '3:8300', '-c', '3:STATE', o.disk);
  log('created EFI (C12A7328-F81F-11D2-BA4B-00A0C93EC93B) size 16777216 bytes');
  log('created META (0FC63DAF-8483-4772-8E79-3D69D8477DE4) size 1048576 bytes');
  sh('mkfs.vfat', '-F', '16', '--offset', '2048', '-n', 'EFI', o.disk, String(16 * 1024));
  log(`formatting the partition "${o.disk}1" as "vfat" with label "EFI"`);
  const esp = `${o.disk}@@${2048 * 512}`;
  const tmp = join(state, 'esp');
  mkdirSync(tmp, { recursive: true });
  writeFileSync(join(tmp, 'BOOTX64.EFI'), 'fake systemd-boot\n');
  writeFileSync(join(tmp, 'cmdline'), `talos.platform=${o.platform} talos.config=${o.config ?? 'none'}\n`);
  sh('mmd', '-i', esp, '::/EFI', '::/EFI/BOOT', '::/EFI/Talos');
  sh('mcopy', '-i', esp, join(tmp, 'BOOTX64.EFI'), '::/EFI/BOOT/BOOTX64.EFI');
  sh('mcopy', '-i', esp, join(tmp, 'cmdline'), '::/EFI/Talos/cmdline');
  log('installation of v1.9.5 complete');
  return 0;
}

/** What blkid would detect on the disk, as the installer's emptiness check sees it. */
function probe(disk) {
  const head = Buffer.alloc(8192);
  const fd = openSync(disk, 'r');
  readSync(fd, head, 0, head.length, 0);
  closeSync(fd);
  if (head.toString('latin1', 512, 520) === 'EFI PART') {
    const entries = Buffer.alloc(128 * 128);
    const fd2 = openSync(disk, 'r');
    readSync(fd2, entries, 0, entries.length, 1024);
    closeSync(fd2);
    for (let k = 0; k < 128; k++) if (!entries.subarray(k * 128, k * 128 + 16).equals(Buffer.alloc(16))) return 'gpt';
    return null;
  }
  if (head.readUInt16LE(510) === 0xaa55) return 'dos';
  if (head.readUInt16LE(1080) === 0xef53) return 'ext4';
  if (head.toString('latin1', 0, 4) === 'XFSB') return 'xfs';
  return null;
}

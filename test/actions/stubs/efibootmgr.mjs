// TEST DOUBLE of efibootmgr 17 (Debian 12), for next-boot's tests: this machine has no efivarfs.
// The firmware's variables live in the JSON file $FAKE_EFIVARS:
//   {"bootCurrent": "0001", "timeout": 0, "bootNext": null, "bootOrder": ["0001"],
//    "entries": {"0001": {"label": "...", "path": "...", "active": true}}}
// Without it, it says what efibootmgr says on a machine without EFI variables. Its listing and its
// errors follow efibootmgr's source (src/efibootmgr.c): BootNext, BootCurrent, Timeout, BootOrder,
// then `BootXXXX* <label>` (and `\t<device path>` with -v). `-c` reads the partition's GUID, start
// and size from the disk's GPT, as efibootmgr does through libefiboot, and puts the entry first.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const file = process.env.FAKE_EFIVARS;
const err = (s) => process.stderr.write(`${s}\n`);
if (!file) {
  err('EFI variables are not supported on this system.');
  process.exit(2);
}
const vars = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : { bootCurrent: null, timeout: null, bootNext: null, bootOrder: [], entries: {} };
const hex4 = (s) => parseInt(s, 16).toString(16).toUpperCase().padStart(4, '0');

const o = {
  verbose: false,
  quiet: false,
  create: false,
  del: false,
  disk: '/dev/sda',
  part: 1,
  label: 'Linux',
  loader: '\\elilo.efi',
  num: null,
  next: null,
  order: null,
  active: null,
};
const a = process.argv.slice(2);
for (let i = 0; i < a.length; i++) {
  const flag = a[i];
  const val = () => a[++i];
  if (flag === '-v' || flag === '--verbose') o.verbose = true;
  else if (flag === '-q' || flag === '--quiet') o.quiet = true;
  else if (flag === '-c' || flag === '--create') o.create = true;
  else if (flag === '-B' || flag === '--delete-bootnum') o.del = true;
  else if (flag === '-d' || flag === '--disk') o.disk = val();
  else if (flag === '-p' || flag === '--part') o.part = Number(val());
  else if (flag === '-L' || flag === '--label') o.label = val();
  else if (flag === '-l' || flag === '--loader') o.loader = val();
  else if (flag === '-b' || flag === '--bootnum') o.num = hex4(val());
  else if (flag === '-n' || flag === '--bootnext') o.next = hex4(val());
  else if (flag === '-o' || flag === '--bootorder') o.order = val().split(',').map(hex4);
  else if (flag === '-a' || flag === '--active') o.active = true;
  else if (flag === '-A' || flag === '--inactive') o.active = false;
  else {
    process.stdout.write('usage: efibootmgr [options]\n');
    process.exit(1);
  }
}

const exists = (n) => n in vars.entries;
if (o.del) {
  if (o.num === null) fatal(3, 'You must specify an entry to delete (see the -b option).');
  if (!exists(o.num)) fatal(15, 'Could not delete variable: No such file or directory');
  delete vars.entries[o.num];
  vars.bootOrder = vars.bootOrder.filter((n) => n !== o.num);
}
if (o.active !== null) {
  if (o.num === null || !exists(o.num)) fatal(16, `Could not set active state for Boot${o.num}: No such file or directory`);
  vars.entries[o.num].active = o.active;
}
if (o.create) {
  for (const [n, e] of Object.entries(vars.entries)) if (e.label === o.label) err(`** Warning ** : Boot${n} has same label ${o.label}`);
  let info;
  try {
    info = execFileSync('sgdisk', ['-i', String(o.part), o.disk], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    fatal(5, 'Could not prepare Boot variable: No such file or directory');
  }
  const guid = /Partition unique GUID: (\S+)/.exec(info)?.[1]?.toLowerCase();
  const first = Number(/First sector: (\d+)/.exec(info)?.[1]);
  const size = Number(/Partition size: (\d+) sectors/.exec(info)?.[1]);
  if (!guid || !size) fatal(5, 'Could not prepare Boot variable: No such file or directory');
  const nums = Object.keys(vars.entries)
    .map((n) => parseInt(n, 16))
    .sort((x, y) => x - y);
  let free = nums.findIndex((n, i) => n !== i);
  if (free === -1) free = nums.length;
  const num = hex4(free.toString(16));
  vars.entries[num] = { label: o.label, path: `HD(${o.part},GPT,${guid},0x${first.toString(16)},0x${size.toString(16)})/File(${o.loader})`, active: true };
  vars.bootOrder = [num, ...vars.bootOrder];
}
if (o.order) {
  for (const n of o.order)
    if (!exists(n))
      fatal(8, `Invalid BootOrder order entry value${o.order.join(',')}\n                                   ^\nefibootmgr: entry ${n} does not exist`);
  vars.bootOrder = o.order;
}
if (o.next !== null) {
  if (!exists(o.next)) fatal(12, `Boot entry ${o.next.replace(/^0+(?=.)/, '')} does not exist`);
  vars.bootNext = o.next;
}
writeFileSync(file, JSON.stringify(vars, null, 2));

if (!o.quiet) {
  const lines = [];
  if (vars.bootNext) lines.push(`BootNext: ${vars.bootNext}`);
  if (vars.bootCurrent) lines.push(`BootCurrent: ${vars.bootCurrent}`);
  if (vars.timeout !== null) lines.push(`Timeout: ${vars.timeout} seconds`);
  lines.push(vars.bootOrder.length ? `BootOrder: ${vars.bootOrder.join(',')}` : 'No BootOrder is set; firmware will attempt recovery');
  for (const n of Object.keys(vars.entries).sort()) {
    const e = vars.entries[n];
    lines.push(`Boot${n}${e.active ? '*' : ' '} ${e.label}${o.verbose ? `\t${e.path}` : ''}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

function fatal(code, message) {
  err(message);
  process.exit(code);
}

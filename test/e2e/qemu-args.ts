/**
 * QEMU's command line for one e2e machine (qemu.md: TCG only; OVMF; swtpm over its control
 * socket). `firmware` and `boot` are where the Secure Boot variant plugs in: OVMF's secboot code with
 * the MS vars and SMM, booting shim → grub → kernel from an ESP folder (secure-boot-esp.ts).
 */
import { OVMF_CODE } from './host-tools.js';
import { espArgs, SECURE_BOOT_FIRMWARE } from './secure-boot-esp.js';

export type DiskBus = 'nvme' | 'virtio' | 'usb';

export interface DiskSpec {
  file: string;
  bus: DiskBus;
  serial: string;
  /** USB only (default true): a USB SSD often reports itself fixed, and must be refused as USB. */
  removable?: boolean;
}

export type BootSource =
  | { kind: 'kernel'; kernel: string; initrd: string; append: string }
  /** A FAT folder the firmware boots from (\EFI\BOOT\BOOTX64.EFI): shim → grub → kernel. */
  | { kind: 'esp-folder'; dir: string }
  /** Nothing but the machine's disks: OVMF boots what its variables say (BootNext, then BootOrder). */
  | { kind: 'firmware' };

export interface Share {
  tag: string;
  path: string;
  readonly: boolean;
}

export interface MachineSpec {
  firmware: 'plain' | 'secure-boot';
  /** This machine's copy of the firmware's variables (next-boot writes Boot#### there). */
  varsFile: string;
  /** swtpm's control socket. */
  tpmSocket: string;
  boot: BootSource;
  smbios: { serial: string; uuid: string };
  disks: DiskSpec[];
  shares: Share[];
  nic: {
    mac: string;
    /**
     * guestfwd: a guest address:port → a host loopback port, through `relay` (a command that joins
     * its stdin/stdout to the port). QEMU's `guestfwd=...-tcp:HOST:PORT` is one chardev connection
     * made at start, which every guest connection would share: a second TLS connection then
     * arrives inside the first one's stream. `-cmd:` spawns the relay per guest connection.
     */
    forwards: Array<{ guest: string; hostPort: number }>;
    relay: string;
    /** A UDP port pair carrying raw Ethernet frames to and from the NIC (LLDP in), hubbed with the user network. */
    frames?: { qemuPort: number; hostPort: number };
  };
  memoryMiB?: number;
  /** A QMP socket (server) to power the machine off and to hear why it stopped. */
  qmpSocket?: string;
  /** Where the guest's clock starts (`-rtc base=`), when not now: a clock the agent must set. */
  rtcBase?: string;
}

export function qemuArgs(m: MachineSpec): string[] {
  const fw = m.firmware === 'secure-boot' ? SECURE_BOOT_FIRMWARE : { machine: 'q35', extraArgs: [], code: OVMF_CODE };
  const args = [
    '-machine',
    fw.machine,
    ...fw.extraArgs,
    '-accel',
    'tcg',
    '-m',
    String(m.memoryMiB ?? 1024),
    '-smp',
    '1',
    '-nodefaults',
    '-display',
    'none',
    '-no-reboot',
    '-serial',
    'stdio',
    '-drive',
    `if=pflash,format=raw,unit=0,readonly=on,file=${fw.code}`,
    '-drive',
    `if=pflash,format=raw,unit=1,file=${m.varsFile}`,
    '-chardev',
    `socket,id=chrtpm,path=${m.tpmSocket}`,
    '-tpmdev',
    'emulator,id=tpm0,chardev=chrtpm',
    '-device',
    'tpm-tis,tpmdev=tpm0',
    '-smbios',
    `type=1,serial=${m.smbios.serial},uuid=${m.smbios.uuid}`,
    ...(m.rtcBase ? ['-rtc', `base=${m.rtcBase}`] : []),
  ];
  if (m.boot.kind === 'kernel') args.push('-kernel', m.boot.kernel, '-initrd', m.boot.initrd, '-append', m.boot.append);
  else if (m.boot.kind === 'esp-folder') args.push(...espArgs(m.boot.dir));
  if (m.qmpSocket) args.push('-qmp', `unix:${m.qmpSocket},server=on,wait=off`);
  m.shares.forEach((s, i) => {
    // multidevs=remap: the host's root spans several filesystems; without it inode numbers collide.
    args.push(
      '-fsdev',
      `local,id=fs${i},path=${s.path},security_model=none,multidevs=remap${s.readonly ? ',readonly=on' : ''}`,
      '-device',
      `virtio-9p-pci,fsdev=fs${i},mount_tag=${s.tag}`,
    );
  });
  if (m.disks.some((d) => d.bus === 'usb')) args.push('-device', 'qemu-xhci,id=xhci');
  m.disks.forEach((d, i) => {
    args.push('-drive', `file=${d.file},if=none,id=disk${i},format=raw`);
    if (d.bus === 'nvme') args.push('-device', `nvme,serial=${d.serial},drive=disk${i}`);
    else if (d.bus === 'virtio') args.push('-device', `virtio-blk-pci,serial=${d.serial},drive=disk${i}`);
    else args.push('-device', `usb-storage,bus=xhci.0,serial=${d.serial},removable=${d.removable === false ? 'off' : 'on'},drive=disk${i}`);
  });
  const fwd = m.nic.forwards.map((f) => `,guestfwd=tcp:${f.guest}-cmd:${m.nic.relay} 127.0.0.1 ${f.hostPort}`).join('');
  // No restrict=on: the guest's SNTP (UDP) reaches the host's loopback at 10.0.2.2, which guestfwd (TCP only) cannot carry.
  args.push('-netdev', `user,id=slirp${fwd}`);
  let nicNetdev = 'slirp';
  if (m.nic.frames) {
    const { qemuPort, hostPort } = m.nic.frames;
    args.push(
      '-netdev',
      `dgram,id=frames,local.type=inet,local.host=127.0.0.1,local.port=${qemuPort},remote.type=inet,remote.host=127.0.0.1,remote.port=${hostPort}`,
      '-netdev',
      'hubport,id=hub-slirp,hubid=0,netdev=slirp',
      '-netdev',
      'hubport,id=hub-frames,hubid=0,netdev=frames',
      '-netdev',
      'hubport,id=hub-nic,hubid=0',
    );
    nicNetdev = 'hub-nic';
  }
  // romfile= drops iPXE's option ROM: faster, and no extra PCR 2 event.
  args.push('-device', `virtio-net-pci,netdev=${nicNetdev},mac=${m.nic.mac},romfile=`);
  return args;
}

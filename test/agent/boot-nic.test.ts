import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NO_ATTEMPT, SECURITYFS_WHY } from '../../agent/boot/lines.js';
import { defaultRouteNic, pickBootNic } from '../../agent/boot/nic.js';
import { ensureSecurityfs, securityfsMounted } from '../../agent/boot/securityfs.js';
import { matching } from '../line-pattern.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A /sys/class/net as Linux lays it out: a directory per NIC, `device` only for real hardware. */
async function sysNet(nics: Array<{ name: string; mac: string; up: boolean; physical: boolean }>): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), 'fleet-net-'));
  for (const n of nics) {
    await mkdir(join(dir, n.name), { recursive: true });
    await writeFile(join(dir, n.name, 'address'), `${n.mac}\n`);
    await writeFile(join(dir, n.name, 'operstate'), n.up ? 'up\n' : 'down\n');
    if (n.physical) await mkdir(join(dir, n.name, 'device'));
  }
  return dir;
}

const LAB = [
  { name: 'lo', mac: '00:00:00:00:00:00', up: true, physical: false },
  { name: 'eno1', mac: '52:54:00:ab:cd:ef', up: true, physical: true },
  { name: 'enp2s0', mac: '52:54:00:00:00:02', up: false, physical: true },
  { name: 'docker0', mac: '02:42:00:00:00:01', up: true, physical: false },
];

describe('the boot NIC', () => {
  it('is the one whose MAC BOOTIF names (case aside), else the one ip= names', async () => {
    const net = await sysNet(LAB);
    expect(await pickBootNic({ bootMac: '52:54:00:00:00:02', bootNic: 'eno1' }, net)).toEqual({ name: 'enp2s0', mac: '52:54:00:00:00:02', by: 'BOOTIF' });
    expect(await pickBootNic({ bootMac: null, bootNic: 'enp2s0' }, net)).toEqual({ name: 'enp2s0', mac: '52:54:00:00:00:02', by: 'ip=' });
  });

  it('with neither: the only physical NIC with a link; bridges and lo do not count', async () => {
    const net = await sysNet(LAB);
    expect(await pickBootNic({ bootMac: null, bootNic: null }, net, join(net, 'no-route'))).toEqual({
      name: 'eno1',
      mac: '52:54:00:ab:cd:ef',
      by: 'the only NIC with a link',
    });
  });

  it("with neither, under Secure Boot (the signed line names no NIC): the default route's NIC, as tink-agent-autoid names tink-agent", async () => {
    const net = await sysNet([...LAB.slice(0, 2), { ...LAB[2]!, up: true }]);
    const route = join(net, 'route');
    await writeFile(
      route,
      'Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\nenp2s0\t0001000A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\nenp2s0\t00000000\t0101000A\t0003\t0\t0\t0\t00000000\t0\t0\t0\n',
    );
    expect(await pickBootNic({ bootMac: null, bootNic: null }, net, route)).toEqual({ name: 'enp2s0', mac: '52:54:00:00:00:02', by: 'the default route' });
    expect(defaultRouteNic('Iface Destination\neth0 0001000A\n')).toBeNull();
    expect(defaultRouteNic('')).toBeNull();
  });

  it('refuses to guess, and says what to fix', async () => {
    const net = await sysNet([...LAB.slice(0, 2), { ...LAB[2]!, up: true }]);
    await expect(pickBootNic({ bootMac: null, bootNic: null }, net, join(net, 'no-route'))).rejects.toThrow(NO_ATTEMPT.noBootNic('2', 'eno1, enp2s0'));
    await expect(pickBootNic({ bootMac: '52:54:00:99:99:99', bootNic: null }, net)).rejects.toThrow(
      NO_ATTEMPT.noBootifNic('52:54:00:99:99:99', 'eno1 52:54:00:ab:cd:ef, enp2s0 52:54:00:00:00:02'),
    );
    await expect(pickBootNic({ bootMac: null, bootNic: 'eth7' }, net)).rejects.toThrow(NO_ATTEMPT.noIpNic('eth7', 'eno1, enp2s0'));
    await expect(pickBootNic({ bootMac: null, bootNic: null }, join(net, 'missing'))).rejects.toThrow(
      matching(NO_ATTEMPT.nicsUnlisted, join(net, 'missing'), /.+/),
    );
  });
});

describe('securityfs', () => {
  const MOUNTS = 'sysfs /sys sysfs rw,nosuid 0 0\nsecurityfs /sys/kernel/security securityfs rw,nosuid,nodev,noexec,relatime 0 0\n';

  it('reads /proc/mounts, octal escapes and all', () => {
    expect(securityfsMounted(MOUNTS, '/sys/kernel/security')).toBe(true);
    expect(securityfsMounted(MOUNTS, '/other')).toBe(false);
    expect(securityfsMounted('securityfs /tmp/a\\040b/sys/kernel/security securityfs rw 0 0', '/tmp/a b/sys/kernel/security')).toBe(true);
    expect(securityfsMounted('garbage\n\n\0', '/sys/kernel/security')).toBe(false);
  });

  it('mounts it when absent, leaves it when present, and says why when it cannot', async () => {
    dir = await mkdtemp(join(tmpdir(), 'fleet-mounts-'));
    const mounts = join(dir, 'mounts');
    const calls: string[] = [];
    const mount = async (t: string) => void calls.push(t);
    await writeFile(mounts, MOUNTS);
    expect(await ensureSecurityfs({ mountsPath: mounts, mount })).toBe('present');
    await writeFile(mounts, 'sysfs /sys sysfs rw 0 0\n');
    expect(await ensureSecurityfs({ mountsPath: mounts, mount })).toBe('mounted');
    expect(calls).toEqual(['/sys/kernel/security']);
    await expect(ensureSecurityfs({ mountsPath: mounts, mount: async () => Promise.reject(new Error('mount: permission denied')) })).rejects.toThrow(
      SECURITYFS_WHY.unmountable('/sys/kernel/security', 'mount: permission denied'),
    );
  });
});

import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { FleetError } from '../../shared/errors.js';
import { NO_ATTEMPT } from './lines.js';

export interface BootNic {
  name: string;
  mac: string;
  /** How it was chosen, for the console line (lines.ts). */
  by: 'BOOTIF' | 'ip=' | 'the default route' | 'the only NIC with a link';
}

interface Nic {
  name: string;
  mac: string;
  up: boolean;
  physical: boolean;
}

const read = (p: string) =>
  readFile(p, 'utf8').then(
    (s) => s.trim(),
    () => '',
  );

async function listNics(net: string): Promise<Nic[]> {
  let names: string[];
  try {
    names = await readdir(net);
  } catch (err) {
    throw new FleetError('boot-nic', NO_ATTEMPT.nicsUnlisted(net, (err as Error).message));
  }
  const nics = await Promise.all(
    names.sort().map(async (name) => ({
      name,
      mac: (await read(join(net, name, 'address'))).toLowerCase(),
      up: (await read(join(net, name, 'operstate'))) === 'up' || (await read(join(net, name, 'carrier'))) === '1',
      // A real NIC has a device; bridges, veths made by containers and lo do not.
      physical: await stat(join(net, name, 'device')).then(
        () => true,
        () => false,
      ),
    })),
  );
  return nics.filter((n) => n.name !== 'lo' && /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/.test(n.mac) && n.mac !== '00:00:00:00:00:00');
}

/** The NIC of the IPv4 default route in /proc/net/route (`Iface Destination ...`, destination 00000000). */
export function defaultRouteNic(route: string): string | null {
  for (const line of route.split('\n').slice(1)) {
    const [iface, dest] = line.trim().split(/\s+/);
    if (iface && dest === '00000000') return iface;
  }
  return null;
}

/**
 * The NIC this machine netbooted from: the one whose MAC BOOTIF names, else the one ip= names,
 * else the one HookOS's DHCP gave the default route (a signed UKI's command line names no NIC),
 * else the only physical NIC with a link. Its MAC goes in the report and its LLDP frame is captured.
 * tink-agent-autoid's entrypoint names tink-agent by the same default-route NIC.
 */
export async function pickBootNic(
  want: { bootMac: string | null; bootNic: string | null },
  net = '/sys/class/net',
  routePath = '/proc/net/route',
): Promise<BootNic> {
  const nics = await listNics(net);
  if (want.bootMac) {
    const nic = nics.find((n) => n.mac === want.bootMac);
    if (nic) return { name: nic.name, mac: nic.mac, by: 'BOOTIF' };
    throw new FleetError('boot-nic', NO_ATTEMPT.noBootifNic(want.bootMac, nics.map((n) => `${n.name} ${n.mac}`).join(', ')));
  }
  if (want.bootNic) {
    const nic = nics.find((n) => n.name === want.bootNic);
    if (nic) return { name: nic.name, mac: nic.mac, by: 'ip=' };
    throw new FleetError('boot-nic', NO_ATTEMPT.noIpNic(want.bootNic, nics.map((n) => n.name).join(', ')));
  }
  const routed = defaultRouteNic(await read(routePath));
  const viaRoute = nics.find((n) => n.name === routed);
  if (viaRoute) return { name: viaRoute.name, mac: viaRoute.mac, by: 'the default route' };
  const linked = nics.filter((n) => n.physical && n.up);
  if (linked.length === 1) return { name: linked[0]!.name, mac: linked[0]!.mac, by: 'the only NIC with a link' };
  throw new FleetError('boot-nic', NO_ATTEMPT.noBootNic(String(linked.length), linked.map((n) => n.name).join(', ')));
}

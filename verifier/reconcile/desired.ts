import { unsafeCharClass } from '../../shared/text/char-classes.js';
import type { Device } from '../inventory/device.js';
import type { NodeClass } from '../inventory/embedded/nodes-file.js';
import { ANNOTATIONS, LABELS, labelsFor } from '../labels.js';
import { KINDS, type KubeObject } from './objects.js';

const apiVersion = (k: keyof typeof KINDS) => `${KINDS[k].group}/${KINDS[k].version}`;

/** Intel AMT listens on 16992 over HTTP, on the host NIC, so at the node's own address. */
export const AMT = { port: 16992, hostScheme: 'http' } as const;

/** 10.0.1.11/24 → the address and its dotted netmask. */
export function splitCidr(cidr: string): { ip: string; netmask: string } | null {
  const [ip, len] = cidr.split('/');
  const n = Number(len);
  if (!ip?.includes('.') || !Number.isInteger(n) || n < 0 || n > 32) return null;
  const mask = n === 0 ? 0 : (0xffffffff << (32 - n)) >>> 0;
  return { ip, netmask: [24, 16, 8, 0].map((s) => (mask >>> s) & 255).join('.') };
}

/**
 * The Hardware fleet keeps for a device that has a MAC: its boot NIC for DHCP (UEFI), its install
 * disk, and netboot.allowPXE, which is fleet's alone: on exactly while the device has an
 * unfinished Workflow. toggleAllowNetboot is never used.
 */
export function desiredHardware(device: Device, namespace: string, allowPXE: boolean): KubeObject {
  const ip = device.address ? splitCidr(device.address) : null;
  const dhcp: Record<string, unknown> = { mac: device.mac, hostname: device.hostname, arch: 'x86_64', uefi: true, lease_time: 86400 };
  if (ip) dhcp.ip = { address: ip.ip, netmask: ip.netmask };
  return {
    apiVersion: apiVersion('Hardware'),
    kind: 'Hardware',
    metadata: { name: device.hostname, namespace, labels: labelsFor(device.hostname) },
    spec: {
      disks: device.installDisk ? [{ device: device.installDisk }] : [],
      interfaces: [{ dhcp, netboot: { allowPXE, allowWorkflow: true } }],
    },
  };
}

/** The Rufio Machine for a device whose BMC fleet can drive (Intel AMT), with its secret `bmc-<bmc_type>`. */
export function desiredMachine(device: Device, namespace: string): KubeObject | null {
  const ip = device.address ? splitCidr(device.address) : null;
  if (device.bmcType !== 'amt' || !ip) return null;
  return {
    apiVersion: apiVersion('Machine'),
    kind: 'Machine',
    metadata: { name: device.hostname, namespace, labels: labelsFor(device.hostname) },
    spec: {
      connection: {
        host: ip.ip,
        port: AMT.port,
        authSecretRef: { name: `bmc-${device.bmcType}`, namespace },
        insecureTLS: true,
        providerOptions: { intelAMT: { port: AMT.port, hostScheme: AMT.hostScheme } },
      },
    },
  };
}

export type RunKind = 'provision' | 'retire';

/** The parameters a run gives its Template ({{.key}}). */
export const HARDWARE_MAP_KEYS = [
  'device_1',
  'node',
  'wipe',
  'install',
  'power_off',
  'install_disk',
  'install_disk_serial',
  'os',
  'installer_image',
  'image_url',
  'image_sha256',
  'seed_url',
  'config_url',
] as const;
export type HardwareMapKey = (typeof HARDWARE_MAP_KEYS)[number];

/**
 * The Templates quote every parameter ("{{.key}}"), and Tinkerbell renders a value as it is: a
 * double quote, a backslash or a line break in one (NEL and U+2028/9 too, which YAML 1.1 folds
 * inside quotes) ends the string early or changes it, and can add keys to an action's environment
 * (a WIPE of its own). Such a value stops the run instead, as does any character printable()
 * escapes (char-classes.ts), which a reader of the Template could not see.
 */
const UNQUOTABLE = new RegExp(unsafeCharClass('"\\\\'), 'u');

/** Each parameter the Templates cannot carry inside their quotes, with the first character that stops it. */
export function unquotableParameters(map: Readonly<Record<string, string>>): Array<{ key: string; char: string }> {
  return Object.entries(map).flatMap(([key, v]) => {
    const m = UNQUOTABLE.exec(v);
    return m ? [{ key, char: m[0] }] : [];
  });
}

/** The Template a run uses: disk-image payloads install through provision-image. */
export function templateFor(kind: RunKind, cls: NodeClass | undefined): string {
  return kind === 'provision' && cls && cls.payload !== 'talos' ? 'provision-image' : 'provision';
}

/**
 * A run's Workflow: `<kind>-<node>-<unix seconds>`, hardwareMap device_1 = the MAC and the run's
 * parameters, as strings (the Templates read them as {{.key}}).
 */
export function desiredWorkflow(
  device: Device,
  cls: NodeClass | undefined,
  kind: RunKind,
  unix: number,
  namespace: string,
  urls: { seedUrl?: string | undefined; configUrl?: string | undefined },
): KubeObject {
  const name = `${kind}-${device.hostname}-${unix}`;
  // Every key, empty when unused: Tinkerbell renders with missingkey=error, so a missing key fails the run.
  const provision = kind === 'provision' && cls;
  const map: Record<HardwareMapKey, string> = {
    device_1: device.mac!,
    node: device.hostname,
    wipe: 'true',
    install: kind === 'provision' ? 'true' : 'false',
    power_off: kind === 'retire' ? 'true' : 'false',
    install_disk: device.installDisk!,
    install_disk_serial: device.installDiskSerial!,
    os: provision ? cls.payload : '',
    installer_image: (provision && cls.installerImage) || '',
    image_url: (provision && cls.imageUrl) || '',
    image_sha256: (provision && cls.imageSha256) || '',
    seed_url: (provision && cls.payload !== 'talos' && urls.seedUrl) || '',
    config_url: (provision && cls.payload === 'talos' && urls.configUrl) || '',
  };
  return {
    apiVersion: apiVersion('Workflow'),
    kind: 'Workflow',
    metadata: { name, namespace, labels: { ...labelsFor(device.hostname), [LABELS.run]: kind } },
    spec: { templateRef: templateFor(kind, cls), hardwareRef: device.hostname, hardwareMap: map },
  };
}

/** The Rufio Job that power-cycles a machine into a one-time EFI PXE boot. */
export function desiredPowerCycle(device: Device, workflow: string, namespace: string): KubeObject {
  const address = device.address ? splitCidr(device.address)?.ip : undefined;
  return {
    apiVersion: apiVersion('Job'),
    kind: 'Job',
    metadata: {
      name: workflow,
      namespace,
      labels: labelsFor(device.hostname),
      ...(address ? { annotations: { [ANNOTATIONS.bmcAddress]: address } } : {}),
    },
    spec: {
      machineRef: { name: device.hostname, namespace },
      // oneTimeBootDeviceAction, not the newer bootDevice: both Rufio lines accept it.
      tasks: [{ powerAction: 'off' }, { oneTimeBootDeviceAction: { device: ['pxe'], efiBoot: true } }, { powerAction: 'on' }],
    },
  };
}

/**
 * Whether `actual` already holds everything `desired` says: every key of a desired object present
 * and equal, arrays equal in length and element by element. Fields others added (defaults,
 * controllers' fields) are not differences.
 */
export function holds(actual: unknown, desired: unknown): boolean {
  if (desired === null || typeof desired !== 'object') return actual === desired;
  if (Array.isArray(desired)) return Array.isArray(actual) && actual.length === desired.length && desired.every((d, i) => holds(actual[i], d));
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
  return Object.entries(desired).every(([k, v]) => v === undefined || holds((actual as Record<string, unknown>)[k], v));
}

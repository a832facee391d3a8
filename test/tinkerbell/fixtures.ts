/** fleet's own inputs for the tests of what it writes to Tinkerbell: a device, its classes, the reconcile settings, and the Templates' spec.data. */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { Device } from '../../verifier/inventory/device.js';
import type { NodeClass } from '../../verifier/inventory/embedded/nodes-file.js';
import type { ReconcileConfig } from '../../verifier/reconcile/plan.js';

export const NS = 'tinkerbell';
export const MAC = '52:54:00:12:34:56';
export const INSTALLER = 'ghcr.io/siderolabs/installer:v1.9.5';
export const TOOLS = 'ghcr.io/lolwtf/tink-reprovision-tools:0.1.0';
export const URLS = { configUrl: 'https://fleetd.lab:8443/v1/config', seedUrl: 'https://fleetd.lab:8443/v1/seed' };

export const TALOS: NodeClass = { name: 'worker', payload: 'talos', installerImage: INSTALLER, controlPlane: false };
export const NIXOS: NodeClass = {
  name: 'nixos',
  payload: 'nixos-image',
  imageUrl: 'https://images.lab/nixos.raw.zst',
  imageSha256: 'c'.repeat(64),
  controlPlane: false,
};

export const CLOUD: NodeClass = {
  name: 'cloud',
  payload: 'cloud-init-nocloud',
  imageUrl: 'https://images.lab/debian.raw.zst',
  imageSha256: 'e'.repeat(64),
  controlPlane: false,
};

/** Classes by name, as the reconcile controller looks them up. */
export const classMap = (...classes: NodeClass[]): Map<string, NodeClass> => new Map(classes.map((c) => [c.name, c]));

/** The reconcile controller's settings as the lab runs it, in `namespace`. */
export function reconcileConfig(namespace = NS): ReconcileConfig {
  return { namespace, hookosWaitS: 600, defaultGlobalTimeoutS: 3600, corroborationS: 600, ...URLS };
}

export function device(hostname = 'node-1', over: Partial<Device> = {}): Device {
  return {
    id: hostname,
    hostname,
    serial: `SN-${hostname}`,
    status: 'planned',
    controlPlane: false,
    className: 'worker',
    address: '10.0.1.11/24',
    switchPort: 'Port 5',
    bmcType: 'amt',
    installDisk: '/dev/nvme0n1',
    installDiskSerial: 'S4EV',
    binding: {},
    mac: MAC,
    ...over,
  };
}

/** A Template's spec.data, as Flux applies it from images/templates/. */
export function templateData(name: string): string {
  const t = parse(readFileSync(new URL(`../../images/templates/${name}.yaml`, import.meta.url), 'utf8')) as { spec: { data: string } };
  return t.spec.data;
}

import type { Device } from './device.js';
import type { NodeClass } from './embedded/nodes-file.js';

/** A device as a backend reads it, before fleet's rules: everything but what its class implies. */
export type DeviceRecordFields = Omit<Device, 'controlPlane'>;

/**
 * The one way both backends turn a declaration into a Device: what a device is follows from its
 * class's definition (`control_plane: true`, or the class named controlplane), never from the
 * class's name alone. A class fleet has no definition of counts as a control plane, so no
 * auto-provision ever wipes a device whose class nobody defined.
 */
export function deriveDevice(fields: DeviceRecordFields, classes: ReadonlyMap<string, NodeClass>): Device {
  const cls = fields.className ? classes.get(fields.className) : undefined;
  const d: Device = { ...fields, controlPlane: cls ? cls.controlPlane : true };
  // Absent stays absent: the journal's `lacks` lines name what is missing.
  for (const k of Object.keys(d) as Array<keyof Device>) if (d[k] === undefined) delete d[k];
  return d;
}

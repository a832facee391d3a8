/**
 * The labels fleetd puts on the objects it creates (Tinkerbell's, Rufio's, the target cluster's
 * bootstrap tokens), each key defined once. Only objects with the owner label are ever changed or
 * deleted by fleetd.
 */
export const LABELS = {
  /** Every object fleetd creates: its value is OWNER. */
  owner: 'fleet.lolwtf.ca/owner',
  /** The device (host name) an object belongs to. */
  device: 'fleet.lolwtf.ca/device',
  /** A Workflow's run kind: provision or retire. */
  run: 'fleet.lolwtf.ca/run',
  /** How a Workflow's run reaches its machine: hookos, bmc or manual. */
  boot: 'fleet.lolwtf.ca/boot',
} as const;

/** Annotations: what fleetd needs to read back from an object it made, but selects nothing by. */
export const ANNOTATIONS = {
  /** A power-cycle Job's BMC address when fleetd made it: a failed Job is tried again once the address changes. */
  bmcAddress: 'fleet.lolwtf.ca/bmc-address',
} as const;

export const OWNER = 'fleetd';

/** The labels of an object fleetd creates for `device`. */
export function labelsFor(device: string): Record<string, string> {
  return { [LABELS.owner]: OWNER, [LABELS.device]: device };
}

/**
 * The parts of Tinkerbell's and Rufio's objects fleet reads and writes (tinkerbell.org/v1alpha1,
 * bmc.tinkerbell.org/v1alpha1, as in tinkerbell/tinkerbell's api/v1alpha1). Open types: the API
 * server and the controllers add fields fleet does not own, and those must never cause a write.
 */
export interface ObjectMeta {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  resourceVersion?: string;
  creationTimestamp?: string;
  uid?: string;
  [field: string]: unknown;
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

/** The resources fleet touches: group/version and plural for the API paths. */
export const KINDS = {
  Hardware: { group: 'tinkerbell.org', version: 'v1alpha1', plural: 'hardware' },
  Workflow: { group: 'tinkerbell.org', version: 'v1alpha1', plural: 'workflows' },
  Template: { group: 'tinkerbell.org', version: 'v1alpha1', plural: 'templates' },
  Machine: { group: 'bmc.tinkerbell.org', version: 'v1alpha1', plural: 'machines' },
  Job: { group: 'bmc.tinkerbell.org', version: 'v1alpha1', plural: 'jobs' },
} as const;
export type Kind = keyof typeof KINDS;

/** Every object fleet creates carries this label; only objects with it are ever changed or deleted. */
const OWNER_LABEL = 'fleet.lolwtf.ca/owner';
const OWNER = 'fleetd';
/** The device an object belongs to. */
export const DEVICE_LABEL = 'fleet.lolwtf.ca/device';

export function isOwned(o: KubeObject): boolean {
  return o.metadata.labels?.[OWNER_LABEL] === OWNER;
}

export function labelsFor(device: string): Record<string, string> {
  return { [OWNER_LABEL]: OWNER, [DEVICE_LABEL]: device };
}

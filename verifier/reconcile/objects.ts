/**
 * The parts of Tinkerbell's and Rufio's objects fleet reads and writes (tinkerbell.org/v1alpha1,
 * bmc.tinkerbell.org/v1alpha1, as in tinkerbell/tinkerbell's api/v1alpha1). Open types: the API
 * server and the controllers add fields fleet does not own, and those must never cause a write.
 */
import { LABELS, OWNER } from '../labels.js';

export interface ObjectMeta {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
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

/** Only objects fleetd owns are ever changed or deleted. */
export function isOwned(o: KubeObject): boolean {
  return o.metadata.labels?.[LABELS.owner] === OWNER;
}

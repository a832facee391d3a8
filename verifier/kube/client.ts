import { ApiException, CoordinationV1Api, CustomObjectsApi, KubeConfig, PatchStrategy, setHeaderOptions, type V1Lease } from '@kubernetes/client-node';
import type { RegisteredCode } from '../../shared/error-codes.js';
import { FleetError, errorMessage } from '../../shared/errors.js';
import { KINDS, type Kind, type KubeObject } from '../reconcile/objects.js';

export type KubeErrorCode = Extract<RegisteredCode, `kube-${string}`>;

/** A failed API call: `code` says what to do (`kube-conflict` → read again and re-plan). */
export class KubeError extends FleetError {
  declare readonly code: KubeErrorCode;
  constructor(
    code: KubeErrorCode,
    message: string,
    readonly status?: number,
  ) {
    super(code, message);
  }
}

/** What the reconciler needs of Tinkerbell's API, in namespace terms (the fake and the real one both serve it). */
export interface Kube {
  readonly namespace: string;
  list(kind: Kind, labelSelector?: string): Promise<KubeObject[]>;
  /** One object, or null when there is none of that name. */
  get(kind: Kind, name: string): Promise<KubeObject | null>;
  create(kind: Kind, object: KubeObject): Promise<KubeObject>;
  /** JSON merge patch; a resourceVersion makes it conditional (409 when the object changed since it was read). */
  patch(kind: Kind, name: string, patch: Record<string, unknown>, resourceVersion?: string): Promise<KubeObject>;
  /** Deletes; an object already gone is not an error. */
  delete(kind: Kind, name: string): Promise<void>;
  readLease(name: string): Promise<V1Lease | null>;
  createLease(lease: V1Lease): Promise<V1Lease>;
  replaceLease(lease: V1Lease): Promise<V1Lease>;
}

const PAGE = 500;

/** A field the API server would drop (a typo, a field the CRD lacks) refuses the write: nothing fleet writes is lost silently. */
const STRICT = 'Strict';

/** Turns client-node's ApiException (or a network error) into a KubeError with the API server's own message. */
export function kubeError(err: unknown, what: string): KubeError {
  if (err instanceof ApiException) {
    let body: { message?: string; reason?: string } = {};
    try {
      body = typeof err.body === 'string' ? JSON.parse(err.body) : ((err.body as typeof body) ?? {});
    } catch {
      // a body that is not a Status: the HTTP code says enough
    }
    const detail = body.message ?? `HTTP ${err.code}`;
    const code =
      err.code === 409
        ? body.reason === 'AlreadyExists'
          ? 'kube-exists'
          : 'kube-conflict'
        : err.code === 404
          ? 'kube-not-found'
          : err.code === 401 || err.code === 403
            ? 'kube-forbidden'
            : err.code >= 500 || err.code === 429
              ? 'kube-unavailable'
              : 'kube-refused';
    return new KubeError(code, `${what}: ${detail}`, err.code);
  }
  return new KubeError('kube-unreachable', `${what}: ${errorMessage(err)}`);
}

/** Tinkerbell's API through @kubernetes/client-node 1.4 (a kubeconfig with the admin client certificate). */
export class KubeClient implements Kube {
  private readonly objects: CustomObjectsApi;
  private readonly coordination: CoordinationV1Api;

  constructor(
    kc: KubeConfig,
    readonly namespace: string,
  ) {
    this.objects = kc.makeApiClient(CustomObjectsApi);
    this.coordination = kc.makeApiClient(CoordinationV1Api);
  }

  static fromFile(path: string, namespace: string): KubeClient {
    const kc = new KubeConfig();
    try {
      kc.loadFromFile(path);
    } catch (err) {
      throw new FleetError('config-unreadable', `cannot read the kubeconfig ${path}: ${errorMessage(err)}`);
    }
    return new KubeClient(kc, namespace);
  }

  private where(kind: Kind) {
    const k = KINDS[kind];
    return { group: k.group, version: k.version, plural: k.plural, namespace: this.namespace };
  }

  async list(kind: Kind, labelSelector?: string): Promise<KubeObject[]> {
    const items: KubeObject[] = [];
    let cont: string | undefined;
    do {
      let page: { items?: KubeObject[]; metadata?: { continue?: string } };
      try {
        page = await this.objects.listNamespacedCustomObject({
          ...this.where(kind),
          limit: PAGE,
          ...(labelSelector ? { labelSelector } : {}),
          ...(cont ? { _continue: cont } : {}),
        });
      } catch (err) {
        throw kubeError(err, `list ${KINDS[kind].plural}`);
      }
      items.push(...(page.items ?? []));
      cont = page.metadata?.continue || undefined;
    } while (cont);
    return items;
  }

  async get(kind: Kind, name: string): Promise<KubeObject | null> {
    try {
      return (await this.objects.getNamespacedCustomObject({ ...this.where(kind), name })) as KubeObject;
    } catch (err) {
      const e = kubeError(err, `get ${kind} ${name}`);
      if (e.code === 'kube-not-found') return null;
      throw e;
    }
  }

  async create(kind: Kind, object: KubeObject): Promise<KubeObject> {
    try {
      return (await this.objects.createNamespacedCustomObject({ ...this.where(kind), body: object, fieldValidation: STRICT })) as KubeObject;
    } catch (err) {
      throw kubeError(err, `create ${kind} ${object.metadata.name}`);
    }
  }

  async patch(kind: Kind, name: string, patch: Record<string, unknown>, resourceVersion?: string): Promise<KubeObject> {
    const body = resourceVersion ? { ...patch, metadata: { ...((patch.metadata as object) ?? {}), resourceVersion } } : patch;
    try {
      return (await this.objects.patchNamespacedCustomObject(
        { ...this.where(kind), name, body, fieldValidation: STRICT },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      )) as KubeObject;
    } catch (err) {
      throw kubeError(err, `patch ${kind} ${name}`);
    }
  }

  async delete(kind: Kind, name: string): Promise<void> {
    try {
      await this.objects.deleteNamespacedCustomObject({ ...this.where(kind), name, propagationPolicy: 'Background' });
    } catch (err) {
      const e = kubeError(err, `delete ${kind} ${name}`);
      if (e.code !== 'kube-not-found') throw e;
    }
  }

  async readLease(name: string): Promise<V1Lease | null> {
    try {
      return await this.coordination.readNamespacedLease({ name, namespace: this.namespace });
    } catch (err) {
      const e = kubeError(err, `read Lease ${name}`);
      if (e.code === 'kube-not-found') return null;
      throw e;
    }
  }

  async createLease(lease: V1Lease): Promise<V1Lease> {
    try {
      return await this.coordination.createNamespacedLease({ namespace: this.namespace, body: lease });
    } catch (err) {
      throw kubeError(err, `create Lease ${lease.metadata?.name}`);
    }
  }

  async replaceLease(lease: V1Lease): Promise<V1Lease> {
    try {
      return await this.coordination.replaceNamespacedLease({ name: lease.metadata!.name!, namespace: this.namespace, body: lease });
    } catch (err) {
      throw kubeError(err, `replace Lease ${lease.metadata?.name}`);
    }
  }
}

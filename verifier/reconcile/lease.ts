import { V1MicroTime, type V1Lease, type V1LeaseSpec } from '@kubernetes/client-node';
import { KubeError, type Kube } from '../kube/client.js';

/**
 * Leader election on a coordination.k8s.io/v1 Lease, so two fleetd instances never both write:
 * the holder renews it every pass; another takes it over only after it expired. Every write is
 * conditional on the resourceVersion read, so two that race cannot both win.
 */
export class LeaderLease {
  constructor(
    private readonly kube: Kube,
    readonly identity: string,
    readonly name = 'fleetd',
    readonly durationS = 60,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when this instance holds the lease now (acquired or renewed); false when another does. */
  async hold(): Promise<boolean> {
    const lease = await this.kube.readLease(this.name);
    // One clock reading, taken after the read: the expiry is judged at the time the write records.
    const at = this.now();
    const now = new V1MicroTime(at);
    try {
      if (!lease) {
        await this.kube.createLease({
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: this.name, namespace: this.kube.namespace },
          spec: { holderIdentity: this.identity, leaseDurationSeconds: this.durationS, acquireTime: now, renewTime: now, leaseTransitions: 0 },
        });
        return true;
      }
      const spec = lease.spec ?? {};
      const renewed = spec.renewTime ? new Date(spec.renewTime).getTime() : 0;
      const expired = renewed + (spec.leaseDurationSeconds ?? this.durationS) * 1000 < at;
      const mine = spec.holderIdentity === this.identity;
      // A released lease names no holder: free at once, as client-go's leader election leaves it.
      if (!mine && !expired && spec.holderIdentity) return false;
      // Times come back as strings; the API takes only six-digit MicroTimes, so they are rebuilt.
      const acquired = mine && spec.acquireTime ? new V1MicroTime(new Date(spec.acquireTime).getTime()) : now;
      await this.replace(lease, {
        holderIdentity: this.identity,
        leaseDurationSeconds: this.durationS,
        acquireTime: acquired,
        renewTime: now,
        leaseTransitions: (spec.leaseTransitions ?? 0) + (mine ? 0 : 1),
      });
      return true;
    } catch (err) {
      // Another instance wrote the lease between our read and our write: it holds it.
      if (err instanceof KubeError && (err.code === 'kube-conflict' || err.code === 'kube-exists')) return false;
      throw err;
    }
  }

  /**
   * On a clean stop: the lease names no holder, so the next fleetd (a restart, or the standby)
   * reconciles at once instead of waiting out the lease. Only this instance's own lease is
   * released; a failure leaves it to expire.
   */
  async release(): Promise<void> {
    const lease = await this.kube.readLease(this.name);
    if (lease?.spec?.holderIdentity !== this.identity) return;
    const now = new V1MicroTime(this.now());
    await this.replace(lease, {
      holderIdentity: '',
      leaseDurationSeconds: 1,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: lease.spec.leaseTransitions ?? 0,
    }).catch((err: unknown) => {
      if (!(err instanceof KubeError && err.code === 'kube-conflict')) throw err;
    });
  }

  /** Writes the lease, conditional on the version read. */
  private replace(read: V1Lease, spec: V1LeaseSpec): Promise<V1Lease> {
    return this.kube.replaceLease({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: this.name, namespace: this.kube.namespace, resourceVersion: read.metadata?.resourceVersion },
      spec,
    });
  }
}

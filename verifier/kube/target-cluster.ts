import { CoreV1Api, KubeConfig, type V1Secret } from '@kubernetes/client-node';
import { FleetError, errorMessage } from '../../shared/errors.js';
import { kubeError } from './client.js';

/** The cluster nodes join (folly): fleetd creates each installing node's bootstrap token there. */
export interface TargetCluster {
  createSecret(secret: V1Secret): Promise<void>;
}

export class TargetClusterClient implements TargetCluster {
  private readonly core: CoreV1Api;

  constructor(kc: KubeConfig) {
    this.core = kc.makeApiClient(CoreV1Api);
  }

  static fromFile(path: string): TargetClusterClient {
    const kc = new KubeConfig();
    try {
      kc.loadFromFile(path);
    } catch (err) {
      throw new FleetError('config-unreadable', `cannot read the target cluster's kubeconfig ${path}: ${errorMessage(err)}`);
    }
    return new TargetClusterClient(kc);
  }

  async createSecret(secret: V1Secret): Promise<void> {
    try {
      await this.core.createNamespacedSecret({ namespace: secret.metadata!.namespace!, body: secret });
    } catch (err) {
      // The Secret's data is never in the message: the API server's Status names only the object.
      throw kubeError(err, `create Secret ${secret.metadata?.namespace}/${secret.metadata?.name}`);
    }
  }
}

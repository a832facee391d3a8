import { stringify } from 'yaml';
import type { Payload } from '../../shared/payloads.js';
import type { SeedDocument } from '../../shared/seed/document.js';
import type { SeedInputs } from './seed-inputs.js';
import { ustar } from './tar.js';

/** What a disk-image node's values add to its class's seed inputs. */
export interface SeedNode {
  className: string;
  hostname: string;
  /** CIDR, e.g. 10.0.1.11/24. */
  address: string;
  /** The boot NIC's MAC its attestation proved. */
  mac: string;
  nodeUuid: string | null;
  run: string | null;
  at: Date;
}

/**
 * cloud-init reads YAML 1.1 (PyYAML), where an unquoted MAC such as 52:54:00:12:34:56 is a
 * base-60 number: every string is written quoted.
 */
const YAML_11_SAFE = { defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN' } as const;

export interface RenderedSeed {
  body: Buffer;
  contentType: string;
}

/**
 * A disk-image node's seed. cloud-init-nocloud: the NoCloud files (meta-data, network-config
 * version 2 with the static address on the NIC of the attested MAC, user-data from the class) as
 * the tar the action extracts. nixos-image, alpine-image: the seed document (shared/seed/document.ts).
 */
export function renderSeed(payload: Exclude<Payload, 'talos'>, inputs: SeedInputs, node: SeedNode): RenderedSeed {
  const nameservers = inputs.network.nameservers ?? [];
  if (payload === 'cloud-init-nocloud') {
    // A new instance-id per code: cloud-init runs its first-boot modules again for a new install.
    const instance = `${node.hostname}-${node.run ?? 'intake'}`;
    const metaData = stringify({ 'instance-id': instance, 'local-hostname': node.hostname }, YAML_11_SAFE);
    const networkConfig = stringify(
      {
        version: 2,
        ethernets: {
          boot: {
            match: { macaddress: node.mac },
            'set-name': 'boot',
            dhcp4: false,
            addresses: [node.address],
            // 0.0.0.0/0, not netplan's "default": cloud-init 22.4's v2 parser takes only addresses.
            routes: [{ to: '0.0.0.0/0', via: inputs.network.gateway }],
            ...(nameservers.length ? { nameservers: { addresses: nameservers } } : {}),
          },
        },
      },
      YAML_11_SAFE,
    );
    const userData = inputs.userData ?? '#cloud-config\n{}\n';
    const files = [
      { name: 'meta-data', body: Buffer.from(metaData) },
      { name: 'network-config', body: Buffer.from(networkConfig) },
      { name: 'user-data', body: Buffer.from(userData) },
    ];
    return { body: ustar(files, node.at), contentType: 'application/x-tar' };
  }
  const doc: SeedDocument = {
    version: 1,
    hostname: node.hostname,
    address: node.address,
    mac: node.mac,
    gateway: inputs.network.gateway,
    nameservers,
    nodeUuid: node.nodeUuid,
    run: node.run,
    class: { name: node.className, data: inputs.data },
  };
  return { body: Buffer.from(`${JSON.stringify(doc)}\n`), contentType: 'application/json' };
}

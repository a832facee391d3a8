import { labelsFor } from '../labels.js';
import { randomInt } from 'node:crypto';

/** A Kubernetes bootstrap token: `<id>.<secret>`, [a-z0-9]{6} and [a-z0-9]{16}. */
export interface BootstrapToken {
  id: string;
  secret: string;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

function random(n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return s;
}

export function newBootstrapToken(): BootstrapToken {
  return { id: random(6), secret: random(16) };
}

export const tokenString = (t: BootstrapToken) => `${t.id}.${t.secret}`;

/**
 * The node's own bootstrap-token Secret in the target cluster (kube-system). It expires at
 * `expiresAt`: the config's time to live plus four hours, so a kubelet that starts late still joins,
 * and a token nobody used stops working by itself.
 */
export function bootstrapTokenSecret(
  t: BootstrapToken,
  node: string,
  expiresAt: Date,
): {
  apiVersion: 'v1';
  kind: 'Secret';
  metadata: { name: string; namespace: string; labels: Record<string, string> };
  type: string;
  stringData: Record<string, string>;
} {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${t.id}`, namespace: 'kube-system', labels: labelsFor(node) },
    type: 'bootstrap.kubernetes.io/token',
    stringData: {
      'token-id': t.id,
      'token-secret': t.secret,
      expiration: expiresAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      description: `fleetd: ${node}'s install`,
      'usage-bootstrap-authentication': 'true',
      'usage-bootstrap-signing': 'true',
      'auth-extra-groups': 'system:bootstrappers:fleet',
    },
  };
}

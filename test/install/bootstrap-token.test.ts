import { get } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { ATTEST_LINES } from '../../agent/attest/lines.js';
import { parse } from 'yaml';
import { runAttestation } from '../../agent/attest/run.js';
import { ekHashOfCertificate } from '../../shared/ek-cert/ek-certificate.js';
import { TargetClusterClient } from '../../verifier/kube/target-cluster.js';
import { FakeKube } from '../kube/fake-kube.js';
import { goldenTpm } from '../swtpm/provision.js';
import { startRig, type Rig } from '../swtpm/rig.js';

/**
 * Each installing node's own bootstrap token, created in the target cluster (the fake API server,
 * through the real Kubernetes client) before its code is answered.
 */
let rig: Rig | undefined;
let kube: FakeKube | undefined;
afterEach(async () => {
  await rig?.close();
  await kube?.close();
  rig = kube = undefined;
});

async function admittedRig(): Promise<{ rig: Rig; kube: FakeKube }> {
  const k = await FakeKube.start();
  const kc = new KubeConfig();
  kc.loadFromString(k.kubeconfigYaml);
  const r = await startRig({ target: new TargetClusterClient(kc), autoProvision: true });
  const g = await goldenTpm('a');
  await r.declare({ approved_ek_rsa2048: ekHashOfCertificate(g.ekCertRsaDer), approved_ek_eccp256: ekHashOfCertificate(g.ekCertEccDer) });
  return { rig: r, kube: k };
}

async function attest(r: Rig): Promise<string[]> {
  const lines: string[] = [];
  await runAttestation({ tpm: r.tpm, client: { baseUrl: r.url }, boot: r.boot, installCodePath: r.installCodePath, say: (l) => lines.push(l), tries: 1 });
  return lines;
}

function fetchConfig(r: Rig, code: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(`${r.url}/v1/config/${code}`, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`status ${res.statusCode}`))));
    }).on('error', reject);
  });
}

const b64 = (s: unknown) => Buffer.from(String(s), 'base64').toString('utf8');

describe('bootstrap tokens', () => {
  it('an admitted node gets its own token in kube-system, living FLEET_CONFIG_TTL + 4 h, and its config carries it', async () => {
    ({ rig, kube } = await admittedRig());
    const before = Date.now();
    expect(await attest(rig)).toEqual([ATTEST_LINES.passed(), ATTEST_LINES.codeWritten()]);
    const secrets = kube.objects('', 'secrets', 'kube-system');
    expect(secrets).toHaveLength(1);
    const s = secrets[0] as { metadata: { name: string; labels: Record<string, string> }; type: string; data: Record<string, string> };
    expect(s.type).toBe('bootstrap.kubernetes.io/token');
    const id = b64(s.data['token-id']);
    const secret = b64(s.data['token-secret']);
    expect(s.metadata.name).toBe(`bootstrap-token-${id}`);
    expect(s.metadata.labels['fleet.lolwtf.ca/device']).toBe('node-1');
    expect(b64(s.data['usage-bootstrap-authentication'])).toBe('true');
    const expires = Date.parse(b64(s.data.expiration));
    // The rig's FLEET_CONFIG_TTL is one hour; the expiration is whole seconds.
    expect(expires).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 5 * 3600_000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 5 * 3600_000);
    const cfg = parse(await fetchConfig(rig, (await readFile(rig.installCodePath, 'utf8')).trim())) as { cluster: { token: string } };
    expect(cfg.cluster.token).toBe(`${id}.${secret}`);
    // The token is a secret like the code: no audit line holds it.
    expect(JSON.stringify(rig.audits)).not.toContain(secret);
  });

  it('when the token cannot be created: no code, the run cannot start, and the audit line says why', async () => {
    ({ rig, kube } = await admittedRig());
    kube.failNext(1, { verb: 'create', resource: 'secrets', status: 503 });
    expect(await attest(rig)).toEqual([ATTEST_LINES.passed()]);
    await expect(stat(rig.installCodePath)).rejects.toThrow(/ENOENT/);
    expect(rig.store.installCode('node-1')).toBeNull();
    expect(rig.install.configs.waiting()).toBe(0);
    const device = (await rig.inventory.deviceByName('node-1'))!;
    expect(device.desiredAction ?? null).toBeNull();
    expect(rig.audits.find((a) => a.audit === 'attest.install')).toMatchObject({
      node: 'node-1',
      issued: false,
      reason: expect.stringMatching(/^create node-1's bootstrap token: create Secret kube-system\/bootstrap-token-[a-z0-9]{6}: .*unable to handle the request/),
    });
    expect(kube.objects('', 'secrets', 'kube-system')).toEqual([]);
  });
});

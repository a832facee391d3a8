import { execFileSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { get } from 'node:https';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runAttestation } from '../../agent/attest/run.js';
import { ekHashOfCertificate } from '../../shared/ek-cert/ek-certificate.js';
import { classInputs } from '../install/talos-fixture.js';
import { FakeKube, RESOURCES } from '../kube/fake-kube.js';
import { startFleetServe } from '../fleet-serve.js';
import { TSX } from '../tsx.js';
import { goldenTpm } from '../swtpm/provision.js';
import { startRig, type Rig } from '../swtpm/rig.js';
import { selfSigned, tlsFiles } from '../tls-files.js';

/**
 * A whole run through `fleet serve` (its request log at trace), scanned for every secret it
 * handles: the install code, the node's bootstrap token, and the cluster's Talos secrets. The
 * config itself carries them, so it is the one place they may be; nothing else may hold them.
 */
let rig: Rig | undefined;
let kube: FakeKube | undefined;
afterEach(async () => {
  await rig?.close();
  await kube?.close();
  rig = kube = undefined;
});

function fetchText(url: string, ca: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, { ca }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    }).on('error', reject);
  });
}

describe('secrets stay secret', () => {
  it('no log line, audit line, journal line, metric, database file or Kubernetes object of a full run holds a code, token or key', async () => {
    kube = await FakeKube.start();
    rig = await startRig();
    const g = await goldenTpm('a');
    await rig.declare({ approved_ek_rsa2048: ekHashOfCertificate(g.ekCertRsaDer), approved_ek_eccp256: ekHashOfCertificate(g.ekCertEccDer) });
    const { dir: inputs, secrets } = await classInputs(join(rig.dir, 'talos'));
    const tls = selfSigned(tlsFiles(rig.dir), { subject: '/CN=fleetd', ips: ['127.0.0.1'] });
    const ca = await readFile(tls.cert);
    const state = join(rig.dir, 'serve-state');
    const args = [
      '--nodes',
      rig.nodesPath,
      '--state',
      state,
      '--auto-provision',
      '--listen',
      '127.0.0.1:0',
      '--cert',
      tls.cert,
      '--key',
      tls.key,
      '--class-inputs',
      inputs,
      '--target-kubeconfig',
      kube.kubeconfigPath,
      '--kubeconfig',
      kube.kubeconfigPath,
      '--reconcile-interval',
      '1',
      '--config-url',
      'https://fleetd.lab:8443/v1/config',
      '--syslog-listen',
      'off',
    ];
    const fleetd = await startFleetServe(args, { env: { ...process.env, FLEET_LOG_LEVEL: 'trace' } });
    const { url } = fleetd;
    const said: string[] = [];

    try {
      // The agent, then the installed node's fetches: its config, again, and a code nobody issued.
      await runAttestation({
        tpm: rig.tpm,
        client: { baseUrl: url, ca },
        boot: rig.boot,
        installCodePath: rig.installCodePath,
        say: (l) => said.push(l),
        tries: 1,
      });
      const code = (await readFile(rig.installCodePath, 'utf8')).trim();
      const config = await fetchText(`${url}/v1/config/${code}`, ca);
      expect(config.status).toBe(200);
      await new Promise((r) => setTimeout(r, 500));
      expect((await fetchText(`${url}/v1/config/${code}`, ca)).status).toBe(404);
      expect((await fetchText(`${url}/v1/config/${'x'.repeat(43)}`, ca)).status).toBe(404);
      const metrics = await fetchText(`${url}/metrics`, ca);
      // A reconcile pass or two: the Hardware, the Workflow, the journal lines they bring.
      await new Promise((r) => setTimeout(r, 2500));

      const token = (parse(config.body) as { cluster: { token: string } }).cluster.token;
      const secretValues = [
        code,
        token.split('.')[1]!,
        secrets.secrets.bootstraptoken,
        secrets.secrets.secretboxencryptionsecret,
        secrets.trustdinfo.token,
        secrets.cluster.secret,
        ...Object.values(secrets.certs).map((c) => c.key),
      ];
      // The list is right: the node's config holds each secret a node of its class gets.
      for (const s of [token, secrets.trustdinfo.token, secrets.cluster.secret]) expect(config.body).toContain(s);
      expect(
        kube.objects('', 'secrets', 'kube-system').map((s) => Buffer.from(String((s.data as Record<string, string>)['token-secret']), 'base64').toString()),
      ).toEqual([token.split('.')[1]]);

      expect(await fleetd.stop()).toBe(0);
      const show = execFileSync(TSX[0], [...TSX.slice(1), 'cli/fleet.ts', 'inventory', 'show', 'node-1', '--nodes', rig.nodesPath, '--state', state], {
        encoding: 'utf8',
      });
      const files = await Promise.all((await readdir(state)).map((f) => readFile(join(state, f), 'latin1')));
      // Every object but the token Secret, which is where the token belongs.
      const objects = RESOURCES.filter((r) => r.plural !== 'secrets').flatMap((r) => kube!.objects(r.group, r.plural));
      const requests = kube.requests.map((r) => r.url);

      // What was scanned is a full run: trace-level request lines, audits, journal, metrics, objects.
      const text = [...fleetd.lines, ...said].join('\n');
      expect(text).toMatch(/"msg":"incoming request"/);
      expect(text).toMatch(/"audit":"attest.install".*"issued":true/);
      expect(text).toMatch(/"audit":"fleet.render".*"outcome":"rendered"/);
      expect(show).toMatch(/fleetd served the config of .* to 127\.0\.0\.1/);
      expect(show).toMatch(/the node asked again for the Talos config fleetd served it/);
      expect(metrics.body).toMatch(/^fleet_install_configs_served_total 1$/m);
      expect(objects.map((o) => o.kind)).toEqual(expect.arrayContaining(['Hardware', 'Lease']));

      const haystacks = {
        emitted: text,
        journal: show,
        metrics: metrics.body,
        database: files.join('\n'),
        objects: JSON.stringify(objects),
        requests: requests.join('\n'),
      };
      for (const [where, hay] of Object.entries(haystacks)) {
        for (const s of secretValues) expect(hay.includes(s), `${where} holds a secret (${s.slice(0, 4)}…)`).toBe(false);
      }
    } finally {
      await fleetd.stop();
    }
  });
});

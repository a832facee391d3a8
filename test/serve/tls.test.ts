import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ATTEST_LINES } from '../../agent/attest/lines.js';
import { matching } from '../line-pattern.js';
import { runAttestation } from '../../agent/attest/run.js';
import { ekHashOfCertificate } from '../../shared/ek-cert/ek-certificate.js';
import { buildServer, listen } from '../../verifier/http/server.js';
import { goldenTpm } from '../swtpm/provision.js';
import { startRig, type Rig } from '../swtpm/rig.js';
import { issued, readPem, selfSigned, tlsFiles } from '../tls-files.js';

/** A CA and a server certificate for 127.0.0.1 signed by it, as PEM. */
function makeCa(dir: string, name: string): { ca: string; cert: string; key: string } {
  const ca = selfSigned(tlsFiles(dir, `${name}-ca`), { subject: `/CN=${name} CA` });
  return { ca: readPem(ca).cert, ...readPem(issued(tlsFiles(dir, `${name}-server`), ca, { subject: '/CN=fleetd', ips: ['127.0.0.1'] })) };
}

let rig: Rig | undefined;
let dir: string | undefined;
afterEach(async () => {
  await rig?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  rig = undefined;
});

describe('the verifier over HTTPS', () => {
  it('the agent attests against a verifier whose certificate chains to its CA, and to no other', async () => {
    dir = await mkdtemp(join(tmpdir(), 'fleet-tls-'));
    const mine = makeCa(dir, 'fleet');
    const other = makeCa(dir, 'other');
    rig = await startRig();
    const g = await goldenTpm('a');
    await rig.declare({ approved_ek_rsa2048: ekHashOfCertificate(g.ekCertRsaDer) });
    rig.runUnderWay('provision');
    const app = buildServer({ service: rig.service, tls: { cert: mine.cert, key: mine.key } });
    const url = await listen(app, { host: '127.0.0.1', port: 0 }, true);
    expect(url).toMatch(/^https:/);
    try {
      const attest = async (ca: string) => {
        const lines: string[] = [];
        const outcome = await runAttestation({
          tpm: rig!.tpm,
          client: { baseUrl: url, ca },
          boot: rig!.boot,
          installCodePath: rig!.installCodePath,
          say: (l) => lines.push(l),
          tries: 1,
        });
        return { outcome, lines };
      };
      const wrong = await attest(other.ca);
      expect(wrong.outcome.kind).toBe('no-verdict');
      expect(wrong.lines[0]).toMatch(matching(ATTEST_LINES.tryFailed, '1', /127\.0\.0\.1:\d+: .*(?:certificate|self.signed).*/i));
      expect(rig.audits).toEqual([]);

      const right = await attest(mine.ca);
      expect(right.lines).toEqual([ATTEST_LINES.passed(), ATTEST_LINES.codeWritten()]);
    } finally {
      await app.close();
    }
  });

  it('plain HTTP is refused anywhere but loopback', async () => {
    rig = await startRig();
    const app = buildServer({ service: rig.service });
    await expect(listen(app, { host: '0.0.0.0', port: 0 }, false)).rejects.toMatchObject({ code: 'insecure-listen' });
    await app.close();
  });
});

/**
 * fleetd killed at every write of an admitted attestation of a run's boot (the machine's facts,
 * its verdict, the journal, the install code): the agent gets no answer, and its next try reaches
 * the restarted fleetd (its sessions and waiting configs gone, as after any restart). Whatever the
 * kill point, that try passes and writes the code; the device's one recorded code is that one,
 * whose config the restarted fleetd holds, and a code the dead fleetd answered (none reached the
 * agent) unlocks nothing.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runAttestation } from '../../agent/attest/run.js';
import { ekHashOfCertificate } from '../../shared/ek-cert/ek-certificate.js';
import { AttestationService } from '../../verifier/attest/service.js';
import { installCodeHash } from '../../verifier/install/code.js';
import { buildServer, listen } from '../../verifier/http/server.js';
import { mortal } from '../crash/mortal.js';
import { testInstalls } from '../install/talos-fixture.js';
import { goldenTpm } from '../swtpm/provision.js';
import { startRig, type Rig } from '../swtpm/rig.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** One fleetd over the rig's database: its own sessions, waiting configs and server. */
async function fleetd(r: Rig, dir: string, wrap: <T extends object>(p: T) => T) {
  const inventory = wrap(r.inventory);
  const store = wrap(r.store);
  const t = await testInstalls(join(r.dir, dir), inventory, store, () => undefined);
  const service = new AttestationService({
    runs: { open: async () => ({ name: 'provision-node-1-1764480000', kind: 'provision' }) },
    inventory,
    store,
    audit: () => undefined,
    installs: t.installs,
    metrics: t.metrics,
  });
  const app = buildServer({ service, installs: t.installs, metrics: t.metrics });
  return { app, url: await listen(app, { host: '127.0.0.1', port: 0 }, false) };
}

describe('fleetd killed during an attestation', () => {
  it("at every write, the agent's next try reaches the restarted fleetd and gets the one code that counts", async () => {
    const g = await goldenTpm('a');
    const ends: string[] = [];
    for (let k = 0; ; k++) {
      rig = await startRig();
      await rig.declare({ approved_ek_rsa2048: ekHashOfCertificate(g.ekCertRsaDer), approved_ek_eccp256: ekHashOfCertificate(g.ekCertEccDer) });
      const m = mortal(k);
      const dying = await fleetd(rig, 'dying', m.wrap);
      const say = () => undefined;
      const first = await runAttestation({ tpm: rig.tpm, client: { baseUrl: dying.url }, boot: rig.boot, installCodePath: rig.installCodePath, say, tries: 1 });
      const answered = rig.store.installCode('node-1')?.sha256 ?? null;
      await dying.app.close();
      const where = `killed after ${k} writes (${m.done.join(', ')}), before ${m.refused() ?? 'none'}`;

      const restarted = await fleetd(rig, 'restarted', (p) => p);
      const next = await runAttestation({
        tpm: rig.tpm,
        client: { baseUrl: restarted.url },
        boot: rig.boot,
        installCodePath: rig.installCodePath,
        say,
        tries: 1,
      });
      expect(next, where).toEqual({ kind: 'passed', installCode: true });
      const code = (await readFile(rig.installCodePath, 'utf8')).trim();
      const record = rig.store.installCode('node-1');
      expect(record?.sha256, where).toBe(installCodeHash(code));
      expect(record?.run, where).toBe('provision-node-1-1764480000');
      expect(rig.inventory.record('node-1'), where).toMatchObject({ verdict: 'attested', mac: rig.boot.mac });
      expect((await fetch(`${restarted.url}/v1/config/${code}`)).status, where).toBe(200);
      if (answered && answered !== record?.sha256) expect(rig.store.installCodeByHash(answered), where).toBeNull();
      await restarted.app.close();
      ends.push(m.died() ? `before ${m.refused()}` : `finished (${first.kind})`);
      await rig.close();
      rig = undefined;
      if (!m.died()) break;
    }
    expect(ends.at(-1)).toBe('finished (passed)');
    expect(ends.length).toBeGreaterThan(3);
    console.warn(`attestation kill points: ${ends.join('; ')}`);
  }, 600_000);
});

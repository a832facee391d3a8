/**
 * fleetd killed at every write after a node took its whole config (marking the code served, the
 * journal line, the device active). The restarted fleetd holds no waiting config, so a later ask
 * is 404 whatever the point; what differs is what the record says, and the runbook's rows for
 * each (the missing-config alert, the refetch alert) follow from it.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigStore } from '../../verifier/install/config-store.js';
import { installCodeHash } from '../../verifier/install/code.js';
import { mortal } from '../crash/mortal.js';
import { device, issue, journal, RUN, start, type Env } from './endpoint-env.js';
import { testInstalls } from './talos-fixture.js';

let env: Env | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

const NODE = '10.0.1.11';
/** A connection the node closed cleanly after taking every byte: acknowledged. */
const taken = { localAddress: '10.0.1.1', localPort: 443, remoteAddress: NODE, remotePort: 40000, writableLength: 0, destroyed: true, endedCleanly: true };

describe('fleetd killed as a config is served', () => {
  it('at every write, the record and the device end in a state a runbook row names', async () => {
    const ends: Array<{ killedBefore: string; served: boolean; status: string; journal: string[] }> = [];
    for (let k = 0; ; k++) {
      env = await start();
      const code = await issue(env);
      const sha256 = installCodeHash(code);
      const m = mortal(k);
      const none = async () => '';
      const dying = (
        await testInstalls(join(env.dir, 'dying'), m.wrap(env.inventory), m.wrap(env.store), () => undefined, { configs: env.t.configs, readTcp: none })
      ).installs;
      expect((await dying.fetch(code, NODE)).status).toBe(200);
      await dying.delivered(sha256, taken, NODE).catch(() => undefined);

      // The restart: no waiting config; the node (had it lost the config) asks again.
      const restarted = (
        await testInstalls(join(env.dir, 'restarted'), env.inventory, env.store, () => undefined, { configs: new ConfigStore(), readTcp: none })
      ).installs;
      expect((await restarted.fetch(code, NODE)).status).toBe(404);
      const record = env.store.installCodeByHash(sha256);
      ends.push({ killedBefore: m.refused() ?? 'nothing', served: !!record?.servedAt, status: (await device(env)).status, journal: await journal(env) });
      await env.close();
      env = undefined;
      if (!m.died()) break;
    }
    const missing = `warning: the node asked for its Talos config, and fleetd holds none for it (from ${NODE})`;
    const served = `success: fleetd served the config of ${RUN.run} to ${NODE}`;
    expect(ends).toEqual([
      // Not recorded as served: the device stays planned, and an ask is the missing-config row.
      { killedBefore: 'markServed', served: false, status: 'planned', journal: [missing] },
      // Served, the release never taken: the same row ("fleetd served it, NetBox has not taken the release").
      { killedBefore: 'journal', served: true, status: 'planned', journal: [missing] },
      { killedBefore: 'setStatus', served: true, status: 'planned', journal: [served, missing] },
      // Done: active, and an ask is the refetch row.
      {
        killedBefore: 'nothing',
        served: true,
        status: 'active',
        journal: [served, expect.stringMatching(/^warning: the node asked again for the Talos config fleetd served it/)],
      },
    ]);
  }, 120_000);
});

import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { validateTalosConfig } from '../../verifier/install/talos-config.js';
import { device, fetch, issue, journal, metric, RUN, run, settle, start, type Env } from './endpoint-env.js';
import { testInstalls } from './talos-fixture.js';

/** The config endpoint: each runbook row about fetching a Talos config. */
let env: Env | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe('the config endpoint', () => {
  it('serves a rendered Talos config once; then 404, journaled, and the device is active', async () => {
    env = await start();
    const code = await issue(env);
    const first = await fetch(env, code);
    expect(first.status).toBe(200);
    const cfg = parse(first.body) as Record<string, unknown>;
    validateTalosConfig(cfg);
    expect(cfg).toMatchObject({
      machine: {
        type: 'worker',
        network: {
          hostname: 'node-1',
          interfaces: [{ deviceSelector: { hardwareAddr: '52:54:00:12:34:56' }, addresses: ['10.0.1.11/24'], routes: [{ gateway: '10.0.1.1' }] }],
        },
        install: { disk: '/dev/nvme0n1' },
      },
      cluster: { clusterName: 'folly' },
    });
    await settle();
    expect((await device(env)).status).toBe('active');
    expect(await fetch(env, code)).toMatchObject({ status: 404 });
    await fetch(env, code);
    const j = await journal(env);
    expect(j[0]).toBe(`success: fleetd served the config of ${RUN.run} to 127.0.0.1`);
    expect(j.slice(1)).toEqual([expect.stringMatching(/^warning: the node asked again for the Talos config fleetd served it \(at .*, from 127\.0\.0\.1\)$/)]);
    expect(await metric(env, 'fleet_install_config_refetched_total')).toEqual(['fleet_install_config_refetched_total{node="node-1"} 2']);
    expect(await metric(env, 'fleet_install_configs_served_total')).toEqual(['fleet_install_configs_served_total 1']);
  });

  it("each code's refetch is journaled once: a second install's is news again", async () => {
    env = await start();
    for (const run of ['provision-node-1-1700000000', 'provision-node-1-1700090000']) {
      const issued = await env.t.installs.issue(await device(env), { bootId: run, mac: '52:54:00:12:34:56', uuid: null }, { run, kind: 'provision' }, 'r');
      if (!('code' in issued)) throw new Error(issued.refused);
      expect((await fetch(env, issued.code)).status).toBe(200);
      await settle();
      await fetch(env, issued.code);
      await fetch(env, issued.code);
      // The reinstall: fleetd's pass sets the device planned again when the next run starts.
      await env.inventory.setStatus(await device(env), 'planned');
    }
    expect((await journal(env)).filter((l) => l.startsWith('warning: the node asked again'))).toHaveLength(2);
  });

  it('a newer code voids the earlier one and the config it unlocked', async () => {
    env = await start();
    const first = await issue(env);
    const second = await issue(env);
    expect((await fetch(env, first)).status).toBe(404);
    expect((await fetch(env, second)).status).toBe(200);
  });

  it('answers 503 while the inventory does not answer, keeping the config; the node fetches it later', async () => {
    let down = true;
    env = await start({ failInventory: () => down });
    const code = await issue(env);
    expect((await fetch(env, code)).status).toBe(503);
    expect((await fetch(env, code)).status).toBe(503);
    down = false;
    expect((await fetch(env, code)).status).toBe(200);
  });

  it('served, but the inventory never took the release: the device stays planned, and a new ask finds none (the missing alert)', async () => {
    env = await start({ failRelease: true });
    const code = await issue(env);
    expect((await fetch(env, code)).status).toBe(200);
    await settle();
    expect((await device(env)).status).toBe('planned');
    expect(env.audits).toContainEqual(
      expect.objectContaining({ audit: 'fleet.config', outcome: 'served', reason: expect.stringMatching(/^the device could not be set active: /) }),
    );
    expect((await fetch(env, code)).status).toBe(404);
    expect(await journal(env)).toEqual([
      `success: fleetd served the config of ${RUN.run} to 127.0.0.1`,
      expect.stringMatching(/^warning: the node asked for its Talos config, and fleetd holds none for it/),
    ]);
    expect(await metric(env, 'fleet_install_config_missing_total')).toEqual(['fleet_install_config_missing_total{node="node-1"} 1']);
  });

  it('expires a config after FLEET_CONFIG_TTL: 404, and the journal says fleetd holds none', async () => {
    env = await start();
    const code = await issue(env);
    env.clock.now += 3600_000 + 1;
    expect((await fetch(env, code)).status).toBe(404);
    expect(await journal(env)).toEqual([expect.stringMatching(/^warning: the node asked for its Talos config, and fleetd holds none for it/)]);
    expect(await metric(env, 'fleet_install_config_missing_total')).toEqual(['fleet_install_config_missing_total{node="node-1"} 1']);
  });

  it('a restart drops every waiting config: the code is known, the config gone', async () => {
    env = await start();
    const code = await issue(env);
    // A new fleetd process: same database, new memory.
    const restarted = await testInstalls(env.dir, env.inventory, env.store, () => undefined, { ackDeadlineMs: 2000 });
    expect(await restarted.installs.fetch(code, '127.0.0.1')).toMatchObject({ status: 404, reason: 'none' });
    expect((await journal(env))[0]).toMatch(/fleetd holds none for it/);
  });

  it('a code fleetd never issued: 404, counted, nothing journaled', async () => {
    env = await start();
    await issue(env);
    expect((await fetch(env, 'A'.repeat(43))).status).toBe(404);
    expect((await fetch(env, 'not-a-code')).status).toBe(404);
    expect(await journal(env)).toEqual([]);
    expect(await metric(env, 'fleet_install_config_missing_total')).toContain('fleet_install_config_missing_total{node="unknown"} 1');
  });

  it('a device that is not planned is not served', async () => {
    env = await start();
    const code = await issue(env);
    await env.inventory.setStatus(await device(env), 'active');
    expect((await fetch(env, code)).status).toBe(404);
    expect((await journal(env))[0]).toBe('warning: the node asked for its Talos config while the device is active; fleetd serves it only to a planned device');
  });

  it.each([
    ['resets the connection mid-answer', ['reset']],
    ['stalls past the write deadline', ['stall', '3']],
  ])('a peer that %s did not take the config: journaled, kept, and a whole fetch then succeeds', async (_name, mode) => {
    env = await start({ className: 'controlplane', ackDeadlineMs: 1000 });
    const code = await issue(env);
    // Not spawnSync: the server under test shares this process's event loop.
    const r = await run('python3', [new URL('./stalling-client.py', import.meta.url).pathname, String(env.port), env.ca, `/v1/config/${code}`, ...mode]);
    expect(r.trim()).toBe('answered');
    await new Promise((res) => setTimeout(res, 1500));
    expect(await journal(env)).toEqual([
      'warning: fleetd sent the Talos config to 127.0.0.1, but the peer did not acknowledge all of it; the config stays for one more fetch, from 127.0.0.1',
    ]);
    expect((await device(env)).status).toBe('planned');
    const whole = await fetch(env, code);
    expect(whole.status).toBe(200);
    expect((parse(whole.body) as { machine: { type: string } }).machine.type).toBe('controlplane');
    await settle();
    expect((await device(env)).status).toBe('active');
  });
});

/** A whole answer read from `from`, the connection then ended as `end` says (answer-reader-client.py). */
const readAnswer = async (e: Env, code: string, from: string, end: 'reset' | 'close' | 'unwrap', ...how: string[]) =>
  (
    await run('python3', [new URL('./answer-reader-client.py', import.meta.url).pathname, String(e.port), e.ca, `/v1/config/${code}`, from, end, ...how])
  ).trim();

describe('a node that closes once it read the answer', () => {
  it.each(['close', 'unwrap'] as const)('Connection: close, the whole answer read, an orderly close (%s): served, the device active', async (end) => {
    env = await start({ ackDeadlineMs: 1000 });
    const code = await issue(env);
    expect(await readAnswer(env, code, '127.0.0.1', end, 'close')).toBe('200');
    await new Promise((r) => setTimeout(r, 1500));
    expect(await journal(env)).toEqual([`success: fleetd served the config of ${RUN.run} to 127.0.0.1`]);
    expect((await device(env)).status).toBe('active');
    expect((await fetch(env, code)).status).toBe(404);
  });
});

describe('a holder of the code that is not the node', () => {
  const readThenReset = (e: Env, code: string, from: string, ...how: string[]) => readAnswer(e, code, from, 'reset', ...how);
  // A reset ends the answer at once; fleetd then decides whether it was delivered.
  const answered = () => new Promise((r) => setTimeout(r, 500));

  it.each([[[]], [['close']]])(
    'reads the answer and resets, again and again (%j): it gets the config at most twice, from its one address, and the node then finds none',
    async (how) => {
      env = await start({ ackDeadlineMs: 1000 });
      const code = await issue(env);
      const statuses: string[] = [];
      for (let i = 0; i < 5; i++) {
        statuses.push(await readThenReset(env, code, '127.0.0.3', ...how));
        await answered();
      }
      const answers = statuses.filter((s) => s === '200').length;
      expect(answers).toBeLessThanOrEqual(2);
      expect(statuses[0]).toBe('200');
      // Its kernel acknowledged each answer; whether fleetd saw that before the reset is a race it
      // may win or lose. Either way every answer is journaled, to the holder's address, and the
      // device turned active only if one was judged served.
      const said = (await journal(env)).filter((l) => /fleetd (served|sent) the /.test(l));
      expect(said).toHaveLength(answers);
      for (const line of said) expect(line).toMatch(/ to 127\.0\.0\.3\b/);
      const served = said.some((l) => l.startsWith('success: fleetd served'));
      expect((await device(env)).status).toBe(served ? 'active' : 'planned');
      expect((await fetch(env, code)).status).toBe(404);
    },
  );

  it('after one unacknowledged answer, another address is refused, and the journal names both; the first address gets it', async () => {
    env = await start({ ackDeadlineMs: 1000 });
    const code = await issue(env);
    // An answer the kernel never saw acknowledged, as a node's lost answer looks (from 127.0.0.1).
    expect(
      (await run('python3', [new URL('./stalling-client.py', import.meta.url).pathname, String(env.port), env.ca, `/v1/config/${code}`, 'reset'])).trim(),
    ).toBe('answered');
    await answered();
    expect(await readThenReset(env, code, '127.0.0.2')).toBe('404');
    expect((await fetch(env, code)).status).toBe(200);
    await settle();
    expect((await device(env)).status).toBe('active');
    expect(await journal(env)).toEqual([
      'warning: fleetd sent the Talos config to 127.0.0.1, but the peer did not acknowledge all of it; the config stays for one more fetch, from 127.0.0.1',
      'warning: the node asked for its Talos config from 127.0.0.2, but fleetd answered it to 127.0.0.1, which did not acknowledge all of it; it stays for one more fetch from there alone',
      `success: fleetd served the config of ${RUN.run} to 127.0.0.1`,
    ]);
  });
});

describe('issuing a code', () => {
  it('a control plane whose class inputs are missing gets no code (nothing to wipe for)', async () => {
    env = await start({ className: 'controlplane' });
    await rm(join(env.t.classInputsDir, 'controlplane'), { recursive: true });
    const issued = await env.t.installs.issue(await device(env), { bootId: 'b', mac: '52:54:00:12:34:56', uuid: null }, RUN, 'r');
    expect(issued).toEqual({
      refused: expect.stringMatching(/^the class inputs of controlplane are missing .*; run fleet render-class-inputs and deploy them$/),
    });
    expect(env.audits).toEqual([expect.objectContaining({ audit: 'fleet.render', outcome: 'refused', node: 'node-1' })]);
    expect(env.store.installCode('node-1')).toBeNull();
  });

  it("a control plane's config names the node in its API server SANs and carries the CA keys; a worker's carries none", async () => {
    env = await start({ className: 'controlplane' });
    const cp = parse((await fetch(env, await issue(env))).body) as {
      cluster: { apiServer: { certSANs: string[] }; ca: { key: string } };
      machine: { ca: { key: string } };
    };
    expect(cp.cluster.apiServer.certSANs).toEqual(['10.0.1.10', 'api.folly.example', '10.0.1.11', 'node-1']);
    expect(cp.cluster.ca.key).toBe(env.t.secrets.certs.k8s.key);
    const worker = parse(await readFile(join(env.t.classInputsDir, 'worker', 'config.yaml'), 'utf8')) as {
      cluster: { ca: { key: string } };
      machine: { ca: { key: string } };
    };
    expect([worker.cluster.ca.key, worker.machine.ca.key]).toEqual(['', '']);
  });
});

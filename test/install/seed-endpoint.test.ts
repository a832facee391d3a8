import { DEFAULT_GUESS_LIMITS } from '../../verifier/install/guess-limit.js';
import { execFile, execFileSync } from 'node:child_process';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkValue } from '../../shared/wire/validate.js';
import { SeedDocument } from '../../shared/seed/document.js';
import { device, fetch, journal, metric, RUN, run, settle, start, type Env } from './endpoint-env.js';
import { SETTINGS } from './talos-fixture.js';

/**
 * A disk-image node's seed, served once under its code at `/v1/seed/<code>`, through real HTTPS:
 * what each payload's seed holds (the nocloud files read by cloud-init's own code, the seed
 * document against its published schema), and the same rules as a Talos node's config.
 */
let env: Env | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

const MAC = '52:54:00:12:34:56';
const UUID = '4c4c4544-0031-4a10-8052-b4c04f4e3132';

async function issue(e: Env): Promise<string> {
  const issued = await e.t.installs.issue(await device(e), { bootId: 'boot-1', mac: MAC, uuid: UUID }, RUN, 'req-1');
  if (!('code' in issued)) throw new Error(issued.refused);
  return issued.code;
}

/** What cloud-init (Debian's, its own Python) reads from a NoCloud seed directory. */
function cloudInitReads(dir: string): {
  meta: Record<string, string>;
  interfaces: Array<{ mac: string; subnets: Array<Record<string, unknown>> }>;
  nameservers: string[];
  userData: string;
} {
  return JSON.parse(execFileSync('/usr/bin/python3', [new URL('./cloud-init-read.py', import.meta.url).pathname, dir], { encoding: 'utf8' })) as never;
}

describe("what each disk-image payload's seed holds", () => {
  it.each(['nixos', 'alpine'])('%s: one seed document, valid against the published schema', async (cls) => {
    env = await start({ className: cls });
    const got = await fetch(env, await issue(env), 'seed');
    expect(got.status).toBe(200);
    expect(got.type).toBe('application/json');
    const doc = checkValue(SeedDocument, JSON.parse(got.body), 'verifier-answer-invalid', 'the seed');
    const published = JSON.parse(await readFile(new URL('../../images/first-boot/fleet-seed.schema.json', import.meta.url), 'utf8')) as Record<string, unknown>;
    expect(published).toEqual({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...JSON.parse(JSON.stringify(SeedDocument)) });
    const data = (SETTINGS.classes[cls] as { data?: Record<string, unknown> }).data ?? {};
    expect(doc).toEqual({
      version: 1,
      hostname: 'node-1',
      address: '10.0.1.11/24',
      mac: MAC,
      gateway: '10.0.1.1',
      nameservers: ['10.0.1.1'],
      nodeUuid: UUID,
      run: RUN.run,
      class: { name: cls, data },
    });
  });

  it('cloud-init-nocloud: meta-data, network-config and user-data in a tar, as cloud-init itself reads them', async () => {
    env = await start({ className: 'cloud' });
    const got = await fetch(env, await issue(env), 'seed');
    expect(got.status).toBe(200);
    expect(got.type).toBe('application/x-tar');
    const dir = join(env.dir, 'nocloud');
    await mkdir(dir);
    await writeFile(join(dir, 'seed.tar'), got.bytes);
    // As image-to-disk extracts it.
    expect(execFileSync('tar', ['-t', '-v', '-f', join(dir, 'seed.tar')], { encoding: 'utf8' })).toMatch(
      /^-rw------- root\/root .* meta-data\n-rw------- root\/root .* network-config\n-rw------- root\/root .* user-data\n$/,
    );
    execFileSync('tar', ['-x', '-f', join(dir, 'seed.tar'), '-C', dir, '--no-same-owner']);
    await rm(join(dir, 'seed.tar'));
    const read = cloudInitReads(dir);
    expect(read.meta).toEqual({ 'instance-id': `node-1-${RUN.run}`, 'local-hostname': 'node-1' });
    expect(read.interfaces).toEqual([
      expect.objectContaining({
        mac: MAC,
        subnets: [
          expect.objectContaining({
            type: 'static',
            address: '10.0.1.11',
            prefix: 24,
            routes: [expect.objectContaining({ gateway: '10.0.1.1', network: '0.0.0.0', prefix: 0 })],
          }),
        ],
      }),
    ]);
    expect(read.nameservers).toEqual(['10.0.1.1']);
    expect(read.userData).toBe((SETTINGS.classes.cloud as { userData: string }).userData);
  });

  it('a class without seed inputs gets no code: the render is refused, so nothing is wiped', async () => {
    env = await start({ className: 'nixos' });
    await rm(join(env.t.classInputsDir, 'nixos'), { recursive: true });
    const issued = await env.t.installs.issue(await device(env), { bootId: 'b', mac: MAC, uuid: null }, RUN, 'r');
    expect(issued).toEqual({ refused: expect.stringMatching(/^the seed inputs of nixos are missing .*; run fleet render-class-inputs and deploy them$/) });
    expect(env.audits).toEqual([expect.objectContaining({ audit: 'fleet.render', outcome: 'refused', node: 'node-1' })]);
    expect(env.store.installCode('node-1')).toBeNull();
  });
});

describe.each(['nixos', 'cloud'])("the seed endpoint (%s): the config endpoint's rules", (cls) => {
  it('served once, counted only when acknowledged; then 404 and journaled; a first boot’s fetch turns the device active', async () => {
    env = await start({ className: cls });
    const code = await issue(env);
    expect((await fetch(env, code, 'seed')).status).toBe(200);
    await settle();
    // A NoCloud seed is fetched in HookOS, before image-to-disk writes it: its run's report turns the device active.
    expect((await device(env)).status).toBe(cls === 'cloud' ? 'planned' : 'active');
    expect(await fetch(env, code, 'seed')).toMatchObject({ status: 404 });
    await fetch(env, code, 'seed');
    const j = await journal(env);
    expect(j[0]).toBe(`success: fleetd served the seed of ${RUN.run} to 127.0.0.1`);
    expect(j.slice(1)).toEqual([expect.stringMatching(/^warning: the node asked again for the seed fleetd served it \(at .*, from 127\.0\.0\.1\)$/)]);
    expect(await metric(env, 'fleet_install_configs_served_total')).toEqual(['fleet_install_configs_served_total 1']);
    expect(await metric(env, 'fleet_install_config_refetched_total')).toEqual(['fleet_install_config_refetched_total{node="node-1"} 2']);
  });

  it('503 while the inventory does not answer, the seed kept; 404 after FLEET_CONFIG_TTL, journaled once', async () => {
    let down = true;
    env = await start({ className: cls, failInventory: () => down });
    const code = await issue(env);
    expect(await fetch(env, code, 'seed')).toMatchObject({ status: 503 });
    down = false;
    env.clock.now += 3600_000 + 1;
    expect((await fetch(env, code, 'seed')).status).toBe(404);
    await fetch(env, code, 'seed');
    expect(await journal(env)).toEqual(['warning: the node asked for its seed, and fleetd holds none for it (from 127.0.0.1)']);
    expect(await metric(env, 'fleet_install_config_missing_total')).toEqual(['fleet_install_config_missing_total{node="node-1"} 2']);
  });

  it("a seed's code unlocks nothing under /v1/config, and a HEAD spends nothing", async () => {
    env = await start({ className: cls });
    const code = await issue(env);
    expect((await fetch(env, code, 'config')).status).toBe(404);
    // Not execFileSync: the server under test shares this process's event loop.
    const head = await run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-I', '--cacert', env.ca, `${env.url}/v1/seed/${code}`]);
    expect(head).toBe('404');
    expect((await fetch(env, code, 'seed')).status).toBe(200);
  });
});

describe('an unacknowledged seed', () => {
  it("a fetch the peer does not take whole leaves the seed for the next fetch (a nocloud seed, 4 KiB, past the peer's 1 KiB window)", async () => {
    env = await start({ className: 'cloud', ackDeadlineMs: 1000 });
    const code = await issue(env);
    expect(
      (await run('python3', [new URL('./stalling-client.py', import.meta.url).pathname, String(env.port), env.ca, `/v1/seed/${code}`, 'stall', '3'])).trim(),
    ).toBe('answered');
    await new Promise((res) => setTimeout(res, 1500));
    expect(await journal(env)).toEqual([
      'warning: fleetd sent the seed to 127.0.0.1, but the peer did not acknowledge all of it; the seed stays for one more fetch, from 127.0.0.1',
    ]);
    expect((await device(env)).status).toBe('planned');
    expect((await fetch(env, code, 'seed')).status).toBe(200);
    await settle();
    expect(await journal(env)).toContain(`success: fleetd served the seed of ${RUN.run} to 127.0.0.1`);
  });
});

/** The reference first-boot fetch (images/first-boot/fleet-seed-fetch.sh) under dash, as an image's service runs it. */
function firstBoot(e: Env, esp: string, args: string[] = []): Promise<{ code: number; stderr: string }> {
  const script = new URL('../../images/first-boot/fleet-seed-fetch.sh', import.meta.url).pathname;
  return new Promise((resolve) => {
    execFile(
      'dash',
      [script, '--esp', esp, '--ca', e.ca, '--out', join(e.dir, 'seed.json'), '--uuid-file', join(e.dir, 'product_uuid'), '--delay', '1', ...args],
      { timeout: 30_000 },
      (err, _out, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

/** What image-to-disk leaves on a nixos-image node's ESP, and the machine's own UUID. */
async function installedEsp(e: Env, code: string, uuid = UUID): Promise<string> {
  const esp = join(e.dir, `esp-${Math.random().toString(36).slice(2)}`);
  await mkdir(esp);
  await writeFile(join(esp, 'fleet-seed.json'), `${JSON.stringify({ seedUrl: `${e.url}/v1/seed`, node: 'node-1', nodeUuid: UUID, installCode: code })}\n`, {
    mode: 0o600,
  });
  await writeFile(join(e.dir, 'product_uuid'), `${uuid.toUpperCase()}\n`);
  return esp;
}

describe("the first boot's reference fetch, against fleetd", () => {
  it("fetches the seed once over fleetd's TLS, checks it is this node's, writes it 0600, and removes the code; the device turns active", async () => {
    env = await start({ className: 'nixos' });
    const code = await issue(env);
    const esp = await installedEsp(env, code);
    const r = await firstBoot(env, esp);
    expect(r).toEqual({ code: 0, stderr: 'fleet-seed: seed written to ' + join(env.dir, 'seed.json') + ' for node-1\n' });
    expect(checkValue(SeedDocument, JSON.parse(await readFile(join(env.dir, 'seed.json'), 'utf8')), 'verifier-answer-invalid', 'the seed')).toMatchObject({
      hostname: 'node-1',
      nodeUuid: UUID,
    });
    expect((await stat(join(env.dir, 'seed.json'))).mode & 0o777).toBe(0o600);
    await expect(stat(join(esp, 'fleet-seed.json'))).rejects.toThrow();
    expect(r.stderr).not.toContain(code);
    await settle();
    expect((await device(env)).status).toBe('active');
    // The same code again (a copy of the ESP): final, with the runbook's fix.
    const again = await firstBoot(env, await installedEsp(env, code));
    expect(again).toEqual({
      code: 1,
      stderr: "fleet-seed: fleetd holds no seed for this node's code (spent or expired): set desired_action to provision for a new run\n",
    });
  });

  it('tries again while fleetd answers 503, and takes the seed once it can', async () => {
    let down = true;
    env = await start({ className: 'nixos', failInventory: () => down });
    const code = await issue(env);
    const fetching = firstBoot(env, await installedEsp(env, code), ['--tries', '10']);
    await new Promise((res) => setTimeout(res, 1500));
    down = false;
    const r = await fetching;
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^fleet-seed: try 1: HTTP 503; again in 1 s\n/);
  });

  it('tries again while its address is refused for guessing (429), and takes the seed once the minute ends', async () => {
    env = await start({ className: 'nixos' });
    const code = await issue(env);
    // Someone behind the node's own address guessed its share of codes this minute.
    for (let i = 0; i < DEFAULT_GUESS_LIMITS.perAddress; i++)
      expect((await fetch(env, `${'B'.repeat(40)}${String(i).padStart(3, '0')}`, 'seed')).status).toBe(404);
    const fetching = firstBoot(env, await installedEsp(env, code), ['--tries', '10']);
    await new Promise((res) => setTimeout(res, 1500));
    env.clock.now += DEFAULT_GUESS_LIMITS.windowMs;
    const r = await fetching;
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^fleet-seed: try 1: HTTP 429; again in 1 s\n/);
  });

  it('a disk moved to another machine fetches nothing: the seed stays for its own node', async () => {
    env = await start({ className: 'nixos' });
    const code = await issue(env);
    const r = await firstBoot(env, await installedEsp(env, code, '00000000-1111-2222-3333-444444444444'));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(`^fleet-seed: .*/fleet-seed\\.json is for machine ${UUID}, not this one \\(00000000-1111-2222-3333-444444444444\\); fetching nothing\\n$`),
    );
    expect((await fetch(env, code, 'seed')).status).toBe(200);
  });
});

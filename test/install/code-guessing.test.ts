/**
 * Peers guessing install codes at fleetd's document endpoints (real HTTPS on loopback, fleetd's
 * default limits): wrong codes past their share are answered 429 and audited once, and a node in
 * the guessers' own address group is served its config all the same.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_GUESS_LIMITS } from '../../verifier/install/guess-limit.js';
import { fetch, issue, journal, metric, RUN, settle, start, type Env } from './endpoint-env.js';

let env: Env;
afterEach(async () => env?.close());

const wrong = (i: number) => `${'A'.repeat(36)}${String(i).padStart(7, '0')}`;

async function guess(e: Env, from: string, count: number, offset = 0): Promise<Array<{ status: number; retryAfter: string | undefined; body: string }>> {
  const out = [];
  for (let i = 0; i < count; i++) out.push(await fetch(e, wrong(offset + i), 'config', from));
  return out;
}

const unaudited = (e: Env) => e.audits.filter((a) => a.audit === 'fleet.config' && a.outcome === 'unknown-code');
const limited = (e: Env) => e.audits.filter((a) => a.audit === 'fleet.config' && a.outcome === 'guessing-limited');

describe('a peer guessing install codes', () => {
  it('one address: its share of wrong codes is answered 404 and audited each; past it, 429 with Retry-After, audited once', async () => {
    env = await start();
    const { perAddress } = DEFAULT_GUESS_LIMITS;
    const answers = await guess(env, '127.0.0.9', perAddress + 10);
    expect(answers.slice(0, perAddress).map((a) => a.status)).toEqual(Array(perAddress).fill(404));
    expect(answers.slice(perAddress).map((a) => a.status)).toEqual(Array(10).fill(429));
    const after = answers[perAddress]!;
    expect(Number(after.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(after.retryAfter)).toBeLessThanOrEqual(60);
    expect(JSON.parse(after.body)).toMatchObject({ error: 'too-many-guesses' });
    expect(unaudited(env)).toHaveLength(perAddress);
    expect(limited(env)).toEqual([
      {
        audit: 'fleet.config',
        peer: '127.0.0.9',
        document: 'config',
        outcome: 'guessing-limited',
        limitedBy: 'address',
        limit: perAddress,
        retryAfterS: Number(after.retryAfter),
      },
    ]);
    expect(await metric(env, 'fleet_install_code_guesses_refused_total')).toEqual(['fleet_install_code_guesses_refused_total{limited_by="address"} 10']);
  });

  it('an address past its share is refused even its own code; once the window ends it is answered again', async () => {
    env = await start();
    const code = await issue(env);
    await guess(env, '127.0.0.1', DEFAULT_GUESS_LIMITS.perAddress);
    expect((await fetch(env, code, 'config', '127.0.0.1')).status).toBe(429);
    env.clock.now += DEFAULT_GUESS_LIMITS.windowMs;
    expect((await fetch(env, code, 'config', '127.0.0.1')).status).toBe(200);
  });

  it('many addresses of one group: past the group\u2019s share wrong codes get 429, none audited one by one, and the node in that group is served', async () => {
    env = await start();
    const code = await issue(env);
    const { perAddress, perGroup } = DEFAULT_GUESS_LIMITS;
    const addresses = Array.from({ length: Math.ceil(perGroup / (perAddress - 1)) + 2 }, (_, i) => `127.0.0.${20 + i}`);
    const statuses: number[] = [];
    for (const [n, from] of addresses.entries()) for (const a of await guess(env, from, perAddress - 1, n * 100)) statuses.push(a.status);
    expect(statuses.filter((s) => s === 404)).toHaveLength(perGroup);
    expect(statuses.slice(perGroup).every((s) => s === 429)).toBe(true);
    expect(unaudited(env)).toHaveLength(perGroup);
    expect(limited(env)).toEqual([expect.objectContaining({ limitedBy: 'group', limit: perGroup })]);
    // The node, in 127.0.0.0/24 too, asks with its own code.
    const node = await fetch(env, code, 'config', '127.0.0.2');
    expect(node.status).toBe(200);
    await settle();
    expect(await journal(env)).toEqual([`success: fleetd served the config of ${RUN.run} to 127.0.0.2`]);
  });
});

/**
 * fleetd's request log at its most verbose never holds an install code: not for a config or seed
 * fetch, and not for a near-miss path a typo or a scanner sends (a trailing slash, a wrong
 * route, a query), which no route's own silence covers.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { AttestationService } from '../../verifier/attest/service.js';
import type { Installs } from '../../verifier/install/installs.js';
import { buildServer } from '../../verifier/http/server.js';

const CODE = 'Zx9_Qm3-aB7cD1eF2gH4iJ5kL6mN8oP0qR2sT4uV6wY';

describe('the request log', () => {
  it('at trace level, holds no code for any path that carries one', async () => {
    let log = '';
    const stream = new Writable({ write: (chunk: Buffer, _e, cb) => ((log += chunk.toString()), cb()) });
    const installs = { fetch: async () => ({ status: 404 }) } as unknown as Installs;
    const app = buildServer({ service: {} as AttestationService, installs, logger: { level: 'trace', stream } });
    const paths = [
      `/v1/config/${CODE}`,
      `/v1/config/${CODE}/`,
      `/v1/config/${CODE}?x=1`,
      `/v1/configs/${CODE}`,
      `/v1/seed/${CODE}.json`,
      `/v1/config/${CODE.slice(0, 40)}`,
      `/V1/CONFIG/${CODE}`,
      `//v1/config/${CODE}`,
    ];
    for (const url of paths) {
      const r = await app.inject({ method: 'GET', url });
      expect(r.statusCode, url).toBe(404);
      expect(r.body, url).not.toContain(CODE.slice(0, 40));
    }
    await app.close();
    expect(log.length).toBeGreaterThan(0);
    expect(log).not.toContain(CODE.slice(0, 40));
  });
});

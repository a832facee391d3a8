/** The agent's request waits for the clock: TLS checks the verifier's certificate by it. */
import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { postJson } from '../../agent/attest/verifier-client.js';
import { StartAnswer } from '../../shared/wire/schemas.js';

const closers: Array<() => void> = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

describe('postJson', () => {
  it('sends nothing until `ready` settles', async () => {
    const arrivals: number[] = [];
    const server = createServer((_req, res) => {
      arrivals.push(Date.now());
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"bad-request","message":"no"}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => server.close());
    let settle = (): void => undefined;
    const ready = new Promise<void>((r) => (settle = r));
    const { port } = server.address() as { port: number };
    const answer = postJson({ baseUrl: `http://127.0.0.1:${port}`, ready }, '/v1/attest/start', {}, StartAnswer).catch((err: unknown) => err);
    await new Promise((r) => setTimeout(r, 200));
    expect(arrivals).toEqual([]);
    const settledAt = Date.now();
    settle();
    expect(await answer).toMatchObject({ code: 'verifier-refused', message: `127.0.0.1:${port} answered 400: no` });
    expect(arrivals).toHaveLength(1);
    expect(arrivals[0]).toBeGreaterThanOrEqual(settledAt);
  });
});

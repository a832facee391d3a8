/**
 * fleetd's connections under a hostile peer: silent connections, before and after a TLS handshake,
 * are closed; one source cannot take the connection cap; a slow answer is never cut.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { AttestationService } from '../../verifier/attest/service.js';
import type { Installs } from '../../verifier/install/installs.js';
import { buildServer, listen, type ServerOptions } from '../../verifier/http/server.js';
import { readPem, selfSigned, tlsFiles } from '../tls-files.js';

const dir = mkdtempSync(join(tmpdir(), 'fleet-conns-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const tls = readPem(selfSigned(tlsFiles(dir), { subject: '/CN=fleetd', ips: ['127.0.0.1'] }));

/** No attestation reaches it: these peers never ask. */
const service = {} as AttestationService;

let app: FastifyInstance | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await app?.close();
  app = undefined;
});

async function serve(opts: Partial<ServerOptions>): Promise<number> {
  app = buildServer({ service, ...opts });
  return Number(new URL(await listen(app, { host: '127.0.0.1', port: 0 }, !!opts.tls)).port);
}

/** Resolves with how long the server kept `s` open, or 'open' after `waitMs`. */
function closedWithin(s: Socket, waitMs: number): Promise<number | 'open'> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('open'), waitMs);
    s.on('error', () => undefined);
    s.once('close', () => (clearTimeout(timer), resolve(Date.now() - t0)));
  });
}

const tcp = (port: number, localAddress = '127.0.0.1') =>
  new Promise<Socket>((resolve, reject) => {
    const s = connect({ port, host: '127.0.0.1', localAddress }, () => resolve(s));
    sockets.push(s);
    s.once('error', reject);
  });

describe('connections that ask nothing', () => {
  it('a TCP connection that never sends a byte is closed after the idle time', async () => {
    const port = await serve({ connections: { idleMs: 300 } });
    expect(await closedWithin(await tcp(port), 3000)).toBeLessThan(3000);
  });

  it('a TLS connection that completes its handshake and goes quiet is closed; one that never starts it too', async () => {
    const port = await serve({ tls, connections: { idleMs: 300, handshakeMs: 300 } });
    const quiet = await new Promise<Socket>((resolve, reject) => {
      const s = tlsConnect({ port, host: '127.0.0.1', rejectUnauthorized: false }, () => resolve(s));
      sockets.push(s);
      s.once('error', reject);
    });
    const silent = await tcp(port);
    const [a, b] = await Promise.all([closedWithin(quiet, 3000), closedWithin(silent, 3000)]);
    expect(a).toBeLessThan(3000);
    expect(b).toBeLessThan(3000);
  });

  it('one source holds at most its share: its next connection is closed at once, and another source is served', async () => {
    const port = await serve({ tls, connections: { perSource: 4 } });
    for (let i = 0; i < 4; i++) await tcp(port);
    expect(await closedWithin(await tcp(port), 1000)).toBeLessThan(1000);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        { port, host: '127.0.0.1', localAddress: '127.0.0.2', path: '/healthz', rejectUnauthorized: false, agent: false },
        (res) => (res.resume(), resolve(res.statusCode ?? 0)),
      );
      req.once('error', reject);
      req.end();
    });
    expect(status).toBe(200);
  });

  it('a request whose answer takes longer than the idle time is answered', async () => {
    // An inventory that answers after a second, behind a config fetch.
    const installs = { fetch: async () => (await new Promise((r) => setTimeout(r, 1000)), { status: 404 }) } as unknown as Installs;
    const port = await serve({ tls, installs, connections: { idleMs: 200 } });
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        { port, host: '127.0.0.1', path: `/v1/config/${'a'.repeat(43)}`, rejectUnauthorized: false, agent: false },
        (res) => (res.resume(), resolve(res.statusCode ?? 0)),
      );
      req.once('error', reject);
      req.end();
    });
    expect(status).toBe(404);
  });
});

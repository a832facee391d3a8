import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startRequest } from '../../agent/attest/attest-once.js';
import { AttestationKeys } from '../../agent/tpm/attestation-keys.js';
import { PATHS } from '../../shared/wire/schemas.js';
import { AttestationService } from '../../verifier/attest/service.js';
import { SessionStore } from '../../verifier/attest/session-store.js';
import { buildServer, listen } from '../../verifier/http/server.js';
import { startRig, type Rig } from '../swtpm/rig.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe("the verifier's limits", () => {
  it('closes a connection whose request trickles in (no slow-loris)', async () => {
    rig = await startRig();
    const app = buildServer({ service: rig.service, requestTimeoutMs: 400 });
    const url = new URL(await listen(app, { host: '127.0.0.1', port: 0 }, false));
    try {
      const closedAfter = await new Promise<number>((resolve, reject) => {
        const t0 = Date.now();
        const s = connect(Number(url.port), '127.0.0.1', () => s.write(`POST ${PATHS.finish} HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{`));
        const drip = setInterval(() => s.writable && s.write(' '), 100);
        s.on('close', () => (clearInterval(drip), resolve(Date.now() - t0)));
        s.on('error', () => undefined);
        setTimeout(() => reject(new Error('still open after 10 s')), 10_000).unref();
      });
      expect(closedAfter).toBeLessThan(10_000);
    } finally {
      await app.close();
    }
  });

  it('answers 429 to a peer that holds its share of sessions, and serves others', async () => {
    rig = await startRig();
    const service = new AttestationService({
      inventory: rig.inventory,
      store: rig.store,
      audit: () => undefined,
      installs: rig.install.installs,
      metrics: rig.install.metrics,
      sessions: new SessionStore(60_000, { perPeer: 3 }),
    });
    const app = buildServer({ service });
    const keys = await AttestationKeys.open(rig.tpm);
    const body = startRequest(keys, rig.boot);
    await keys.close();
    const start = (ip: string) => app.inject({ method: 'POST', url: PATHS.start, payload: body, remoteAddress: ip });
    for (let i = 0; i < 3; i++) expect((await start('10.1.1.1')).statusCode).toBe(200);
    const refused = await start('10.1.1.1');
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ error: 'too-many-sessions' });
    expect((await start('10.1.1.2')).statusCode).toBe(200);
    await app.close();
  });
});

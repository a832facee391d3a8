import { describe, expect, it } from 'vitest';
import type { AttestationService } from '../../verifier/attest/service.js';
import { buildServer } from '../../verifier/http/server.js';
import { Metrics } from '../../verifier/metrics.js';
import { parseSubnet } from '../../shared/net/subnet.js';

describe('who may read /metrics', () => {
  it('loopback and the networks --metrics-from names; a node on the network gets 404, as if there were no such route', async () => {
    const metrics = new Metrics();
    metrics.configRefetched.labels('node-cp').inc();
    const app = buildServer({ service: {} as AttestationService, metrics, metricsFrom: ['10.0.9.0/24', '2001:db8::7'].map((s) => parseSubnet(s)!) });
    const get = (remoteAddress: string) => app.inject({ method: 'GET', url: '/metrics', remoteAddress });
    for (const ok of ['127.0.0.1', '::1', '::ffff:127.0.0.1', '10.0.9.5', '2001:db8::7']) {
      const r = await get(ok);
      expect(r.statusCode, ok).toBe(200);
      expect(r.body).toContain('node="node-cp"');
    }
    for (const no of ['10.0.1.11', '10.0.10.1', '2001:db8::8']) {
      const r = await get(no);
      expect(r.statusCode, no).toBe(404);
      expect(r.body).not.toContain('node-cp');
    }
    await app.close();
  });
});

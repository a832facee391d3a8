import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ATTEST_LINES } from '../../agent/attest/lines.js';
import { runAttestation } from '../../agent/attest/run.js';
import { Tpm } from '../../shared/tpm/client.js';

/**
 * The retry loop, and the verifier client against a real HTTP server that misbehaves. The TPM here
 * has no EK (CreatePrimary answers TPM_RC_ASYMMETRIC), so every try fails before the network.
 */
let server: Server | undefined;
let dir: string | undefined;
afterEach(async () => {
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  server = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
});

const noTpm = new Tpm({
  // GetCapability: no properties; NV_ReadPublic/ReadPublic: TPM_RC_HANDLE; CreatePrimary: TPM_RC_ASYMMETRIC
  transmit: async (cmd) => {
    const cc = Buffer.from(cmd).readUInt32BE(6);
    if (cc === 0x17a) return new Uint8Array(Buffer.from('80010000001300000000' + '00' + '00000006' + '00000000', 'hex'));
    const rc = cc === 0x131 ? 0x081 : 0x18b;
    const b = Buffer.alloc(10);
    b.writeUInt16BE(0x8001, 0);
    b.writeUInt32BE(10, 2);
    b.writeUInt32BE(rc, 6);
    return new Uint8Array(b);
  },
  close: async () => undefined,
});

async function run(baseUrl: string, tries = 3) {
  dir = await mkdtemp(join(tmpdir(), 'agent-run-'));
  const lines: string[] = [];
  const waits: number[] = [];
  const outcome = await runAttestation({
    tpm: noTpm,
    client: { baseUrl, timeoutMs: 2000 },
    boot: { serial: 'S', mac: '52:54:00:00:00:01', bootId: '0f2b9c4e-5d6a-4b7c-8d9e-0a1b2c3d4e5f', uuid: null, eventLog: null, lldp: null },
    installCodePath: join(dir, 'fleet', 'install_code'),
    say: (l) => lines.push(l),
    tries,
    retryDelayMs: 30_000,
    wait: async (ms) => void waits.push(ms),
  });
  return { outcome, lines, waits };
}

describe("the agent's tries", () => {
  it('a TPM without any EK fails every try, waits between them, and then says there is no verdict', async () => {
    const { outcome, lines, waits } = await run('http://127.0.0.1:9');
    expect(outcome).toEqual({ kind: 'no-verdict', tries: 3 });
    expect(lines.slice(0, 3)).toEqual([1, 2, 3].map((n) => ATTEST_LINES.tryFailed(String(n), 'the TPM has neither an RSA-2048 nor an ECC P-256 EK')));
    expect(lines[3]).toBe(ATTEST_LINES.noVerdictAfter('3'));
    expect(waits).toEqual([30_000, 30_000]);
  });

  it('a stale install code is removed even when no try succeeds', async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-run-'));
    const codePath = join(dir, 'install_code');
    await writeFile(codePath, 'old-code');
    const lines: string[] = [];
    await runAttestation({
      tpm: noTpm,
      client: { baseUrl: 'http://127.0.0.1:9' },
      boot: { serial: 'S', mac: '52:54:00:00:00:01', bootId: 'b', uuid: null, eventLog: null, lldp: null },
      installCodePath: codePath,
      say: (l) => lines.push(l),
      tries: 1,
      wait: async () => undefined,
    });
    await expect(stat(codePath)).rejects.toThrow(/ENOENT/);
    expect(lines).toHaveLength(2);
  });

  it("the verifier client turns 5xx into a failed try and 4xx into a refusal, with the server's words", async () => {
    const { postJson } = await import('../../agent/attest/verifier-client.js');
    const { StartAnswer } = await import('../../shared/wire/schemas.js');
    let status = 503;
    server = createServer((_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'x', message: 'the request body is invalid' }));
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    await expect(postJson({ baseUrl: url }, '/v1/attest/start', {}, StartAnswer)).rejects.toMatchObject({ code: 'verifier-error' });
    status = 400;
    await expect(postJson({ baseUrl: url }, '/v1/attest/start', {}, StartAnswer)).rejects.toMatchObject({
      code: 'verifier-refused',
      message: /400: the request body is invalid/,
    });
    status = 200;
    await expect(postJson({ baseUrl: url }, '/v1/attest/start', {}, StartAnswer)).rejects.toMatchObject({ code: 'verifier-answer-invalid' });
  });

  it('an answer larger than any the verifier sends is cut off', async () => {
    const { postJson } = await import('../../agent/attest/verifier-client.js');
    const { StartAnswer } = await import('../../shared/wire/schemas.js');
    server = createServer((_req, res) => {
      res.writeHead(200);
      res.end(Buffer.alloc(1 << 20, 0x20));
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    await expect(postJson({ baseUrl: url }, '/x', {}, StartAnswer)).rejects.toMatchObject({ code: 'verifier-unreachable', message: /exceeds/ });
  });
});

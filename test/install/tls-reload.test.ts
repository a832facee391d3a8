import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type Server as TlsServer } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { buildServer, listen } from '../../verifier/http/server.js';
import { loadTls, watchTls } from '../../verifier/http/tls-reload.js';
import { Metrics } from '../../verifier/metrics.js';
import { AttestationService } from '../../verifier/attest/service.js';
import { EmbeddedInventory } from '../../verifier/inventory/embedded/embedded.js';
import { openDatabase } from '../../verifier/state/database.js';
import { LocalStore } from '../../verifier/state/local-store.js';
import { stringify } from 'yaml';
import { ConfigStore } from '../../verifier/install/config-store.js';
import { Installs } from '../../verifier/install/installs.js';
import { RIG_CATALOGUE } from '../swtpm/rig.js';
import { selfSigned, tlsFiles, type TlsFiles } from '../tls-files.js';

/** The enrollment name's certificate renewed in place (as an ACME client does): fleetd serves the new one without a restart. */
let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

/** A self-signed certificate for 127.0.0.1 named `cn`, in `dir/<cn>.crt` and `.key`. */
function makePair(dir: string, cn: string, days: number): TlsFiles {
  return selfSigned(tlsFiles(dir, cn), { subject: `/CN=${cn}`, ips: ['127.0.0.1'], days });
}

/** The CN of the certificate a new connection is served. */
function servedName(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      resolve(String(s.getPeerCertificate().subject.CN));
      s.end();
    });
    s.on('error', reject);
  });
}

async function until(f: () => Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('the enrollment certificate', () => {
  it('is reloaded when its files change; a pair that does not load is reported and the old one kept', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fleet-tls-'));
    const files = { certPath: join(dir, 'tls.crt'), keyPath: join(dir, 'tls.key') };
    const first = makePair(dir, 'first', 30);
    const second = makePair(dir, 'second', 90);
    await rename(first.cert, files.certPath);
    await rename(first.key, files.keyPath);
    const tls = loadTls(files);
    const metrics = new Metrics();
    metrics.setCertificate(tls.notAfter);
    await writeFile(join(dir, 'nodes.yaml'), stringify({ ...RIG_CATALOGUE, nodes: {} }));
    const db = openDatabase(join(dir, 'state'));
    const inventory = new EmbeddedInventory(join(dir, 'nodes.yaml'), db);
    const store = new LocalStore(db);
    const audit = () => undefined;
    const installs = new Installs({ inventory, store, audit, metrics, configs: new ConfigStore(), configTtlMs: 3600_000 });
    const service = new AttestationService({ inventory, store, audit, metrics, installs });
    const app = buildServer({ service, metrics, tls });
    const port = Number(new URL(await listen(app, { host: '127.0.0.1', port: 0 }, true)).port);
    const errors: string[] = [];
    const unwatch = watchTls(
      app.server as unknown as TlsServer,
      files,
      (notAfter) => metrics.setCertificate(notAfter),
      (m) => errors.push(m),
      20,
    );
    cleanup = async () => {
      unwatch();
      await app.close();
      db.close();
      await rm(dir, { recursive: true, force: true });
    };
    const expiry = async () => (await metrics.certificateExpiry.get()).values[0]!.value / 86400;
    expect(await servedName(port)).toBe('first');
    expect(await expiry()).toBeCloseTo(30, 0);

    // Renewal: key first, then certificate, each replaced whole (rename), as certbot's deploy does.
    await rename(second.key, files.keyPath);
    await rename(second.cert, files.certPath);
    await until(async () => (await servedName(port)) === 'second');
    await until(async () => Math.round(await expiry()) === 90);

    // A half-written certificate: reported, and the working pair stays.
    await writeFile(files.certPath, '-----BEGIN CERTIFICATE-----\nMIIB\n');
    await until(async () => errors.length > 0);
    expect(errors[0]).toMatch(/^the certificate or key in .*tls\.crt \/ .*tls\.key did not load; keeping the old pair: /);
    expect(await servedName(port)).toBe('second');
    expect(Math.round(await expiry())).toBe(90);
  });

  it('a key that does not match its certificate does not load at start', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'fleet-tls-'));
    cleanup = () => rm(dir, { recursive: true, force: true });
    const a = makePair(dir, 'a', 1);
    const b = makePair(dir, 'b', 1);
    expect(() => loadTls({ certPath: a.cert, keyPath: b.key })).toThrow();
  });
});

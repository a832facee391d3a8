import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { FleetError } from '../shared/errors.js';
import { AttestationService } from './attest/service.js';
import { SessionStore } from './attest/session-store.js';
import { createAudit } from './audit.js';
import { parseListenAddress } from './http/listen-address.js';
import { buildServer, listen } from './http/server.js';
import { EmbeddedInventory } from './inventory/embedded.js';

export const USAGE = `usage: fleet serve --nodes FILE --state DIR [options]
  --nodes FILE        the nodes file (hostname, serial, approved_ek_rsa2048, approved_ek_eccp256, provision)
  --state DIR         where the verifier keeps what it writes (verdicts, claims, install code hashes)
  --listen HOST:PORT  default 127.0.0.1:8443; anything but loopback needs --cert and --key
  --cert FILE --key FILE  PEM certificate chain and key: serve HTTPS
  --session-ttl SEC   how long a started attestation may take to finish (default 60)`;

/** `fleet serve`: runs the verifier until SIGTERM or SIGINT. */
export async function serve(args: string[], onListening: (url: string) => void = (u) => console.error(`fleetd: listening on ${u}`)): Promise<number> {
  const { values: o } = parseArgs({
    args,
    options: {
      nodes: { type: 'string' },
      state: { type: 'string' },
      listen: { type: 'string', default: '127.0.0.1:8443' },
      cert: { type: 'string' },
      key: { type: 'string' },
      'session-ttl': { type: 'string', default: '60' },
      help: { type: 'boolean' },
    },
  });
  if (o.help) {
    console.log(USAGE);
    return 0;
  }
  if (!o.nodes || !o.state) throw new FleetError('usage', `--nodes and --state are required\n${USAGE}`);
  if (!o.cert !== !o.key) throw new FleetError('usage', '--cert and --key go together');
  const ttl = Number(o['session-ttl']);
  if (!(ttl > 0)) throw new FleetError('usage', '--session-ttl must be a positive number of seconds');

  const inventory = await EmbeddedInventory.open(o.nodes, o.state);
  const service = new AttestationService({ inventory, audit: createAudit(), sessions: new SessionStore(ttl * 1000) });
  const tls = o.cert && o.key ? { cert: await readFile(o.cert), key: await readFile(o.key) } : undefined;
  const app = buildServer({ service, ...(tls ? { tls } : {}), logger: { level: 'warn' } });
  onListening(await listen(app, parseListenAddress(o.listen), !!tls));
  await new Promise<void>((resolve) => {
    const stop = () => void app.close().then(() => resolve());
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  return 0;
}

import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { FleetError } from '../shared/errors.js';
import { AttestationService } from './attest/service.js';
import { SessionStore } from './attest/session-store.js';
import { createAudit } from './audit.js';
import { parseListenAddress } from './http/listen-address.js';
import { buildServer, listen } from './http/server.js';
import { INVENTORY_OPTIONS, INVENTORY_USAGE, openInventory } from './inventory/open.js';
import { openDatabase } from './state/database.js';
import { LocalStore } from './state/local-store.js';

export const USAGE = `usage: fleet serve --state DIR (--nodes FILE | --netbox-url URL ...) [options]
  --state DIR         fleetd's own state (SQLite): waiting claims, install code hashes, and the
                      embedded inventory's device state and journal
${INVENTORY_USAGE}
  --auto-provision    start a planned worker's provision when it first attests
  --listen HOST:PORT  default 127.0.0.1:8443; anything but loopback needs --cert and --key
  --cert FILE --key FILE  PEM certificate chain and key: serve HTTPS
  --session-ttl SEC   how long a started attestation may take to finish (default 60)`;

/** `fleet serve`: runs the verifier until SIGTERM or SIGINT. */
export async function serve(args: string[], onListening: (url: string) => void = (u) => console.error(`fleetd: listening on ${u}`)): Promise<number> {
  const { values: o } = parseArgs({
    args,
    options: {
      ...INVENTORY_OPTIONS,
      state: { type: 'string' },
      'auto-provision': { type: 'boolean', default: false },
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
  if (!o.state) throw new FleetError('usage', `--state is required\n${USAGE}`);
  if (!o.cert !== !o.key) throw new FleetError('usage', '--cert and --key go together');
  const ttl = Number(o['session-ttl']);
  if (!(ttl > 0)) throw new FleetError('usage', '--session-ttl must be a positive number of seconds');

  const db = openDatabase(o.state);
  const inventory = await openInventory(o, db);
  const service = new AttestationService({
    inventory,
    store: new LocalStore(db),
    audit: createAudit(),
    sessions: new SessionStore(ttl * 1000),
    autoProvision: o['auto-provision'],
  });
  const tls = o.cert && o.key ? { cert: await readFile(o.cert), key: await readFile(o.key) } : undefined;
  const app = buildServer({ service, ...(tls ? { tls } : {}), logger: { level: 'warn' } });
  onListening(await listen(app, parseListenAddress(o.listen), !!tls));
  await new Promise<void>((resolve) => {
    const stop = () => void app.close().then(() => resolve());
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  await inventory.close();
  db.close();
  return 0;
}

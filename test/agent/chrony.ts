/**
 * A real NTP server for the agent's SNTP client: Debian's chronyd, run from its extracted package
 * (installing chrony would remove systemd-timesyncd), on a loopback port of its own, serving its
 * own clock (`local stratum 3`) and never setting the machine's (-x).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { querySntp } from '../../agent/clock/sntp.js';
import { Daemons, freePort } from '../daemon.js';

/** Where `npm test`'s setup extracts chrony's package (scripts/ensure-deps.mjs). */
export const CHRONYD = join(process.env.TMPDIR || tmpdir(), 'fleet-chrony', 'root', 'usr', 'sbin', 'chronyd');

export class Chrony {
  private constructor(
    readonly port: number,
    private readonly daemons: Daemons,
  ) {}

  static async start(): Promise<Chrony> {
    if (!existsSync(CHRONYD)) throw new Error(`no chronyd at ${CHRONYD}: run node scripts/ensure-deps.mjs --e2e`);
    const d = new Daemons('chronyd');
    const port = await freePort('udp');
    writeFileSync(
      join(d.dir, 'chrony.conf'),
      [
        `port ${port}`,
        'bindaddress 127.0.0.1',
        'allow 127.0.0.1',
        'local stratum 3',
        'cmdport 0',
        `driftfile ${d.dir}/drift`,
        `pidfile ${d.dir}/chronyd.pid`,
        '',
      ].join('\n'),
    );
    d.spawn(CHRONYD, ['-d', '-x', '-u', 'root', '-f', join(d.dir, 'chrony.conf')]);
    await d.until('chronyd', async () => !!(await querySntp('127.0.0.1', port, { tries: 1, timeoutMs: 300 })));
    return new Chrony(port, d);
  }

  stop(): Promise<void> {
    return this.daemons.stop();
  }
}

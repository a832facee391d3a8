/**
 * A real NTP server for the agent's SNTP client: Debian's chronyd, run from its extracted package
 * (installing chrony would remove systemd-timesyncd), on a loopback port of its own, serving its
 * own clock (`local stratum 3`) and never setting the machine's (-x). Stopped by PID.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createSocket } from 'node:dgram';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { querySntp } from '../../agent/clock/sntp.js';
import { atExit } from '../swtpm/exit.js';

/** Where `npm test`'s setup extracts chrony's package (scripts/ensure-deps.mjs). */
export const CHRONYD = join(process.env.TMPDIR || tmpdir(), 'fleet-chrony', 'root', 'usr', 'sbin', 'chronyd');

function freeUdpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createSocket('udp4');
    s.once('error', reject);
    s.bind(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

export class Chrony {
  private constructor(
    readonly port: number,
    private readonly child: ChildProcess,
    private readonly dir: string,
    private readonly unregister: () => void,
  ) {}

  static async start(): Promise<Chrony> {
    if (!existsSync(CHRONYD)) throw new Error(`no chronyd at ${CHRONYD}: run node scripts/ensure-deps.mjs --e2e`);
    const dir = mkdtempSync(join(tmpdir(), 'fleet-chronyd-'));
    const port = await freeUdpPort();
    writeFileSync(join(dir, 'chrony.conf'), [`port ${port}`, 'bindaddress 127.0.0.1', 'allow 127.0.0.1', 'local stratum 3', 'cmdport 0', `driftfile ${dir}/drift`, `pidfile ${dir}/chronyd.pid`, ''].join('\n'));
    const log: string[] = [];
    const child = spawn(CHRONYD, ['-d', '-x', '-u', 'root', '-f', join(dir, 'chrony.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (b: Buffer) => log.push(b.toString()));
    child.stderr!.on('data', (b: Buffer) => log.push(b.toString()));
    const unregister = atExit(() => {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    });
    const chrony = new Chrony(port, child, dir, unregister);
    for (let i = 0; ; i++) {
      try {
        await querySntp('127.0.0.1', port, { tries: 1, timeoutMs: 300 });
        return chrony;
      } catch (err) {
        if (child.exitCode !== null || i > 30) {
          await chrony.stop();
          throw new Error(`chronyd did not answer: ${String(err)}\n${log.join('')}`);
        }
      }
    }
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((r) => this.child.once('exit', r));
      this.child.kill('SIGTERM');
      await exited;
    }
    this.unregister();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

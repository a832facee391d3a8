/**
 * The agent as HookOS runs it: the bundle's size, and the time from starting `node agent.mjs` to
 * its first TPM command, with everything it does first on a machine: read the kernel command line,
 * ask the NTP server (on loopback), check securityfs, pick the boot NIC, start the LLDP capture
 * (loading cap.node), read the serial, boot id and event log, open the TPM. The TPM is a unix
 * socket that notes when the first command arrives; the median of the runs is the figure.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildAgent } from '../scripts/build.js';
import { SntpServer } from '../test/agent/sntp-server.js';
import type { Figure, Suite } from './run.js';

const RUNS = 15;

async function fakeMachine(dir: string, ntpPort: number): Promise<string> {
  const root = join(dir, 'machine');
  for (const d of ['proc/sys/kernel/random', 'sys/class/dmi/id', 'sys/kernel/security/tpm0', 'sys/class/net/eth0/device', 'worker'])
    await mkdir(join(root, d), { recursive: true });
  await writeFile(
    join(root, 'proc/cmdline'),
    `console=ttyS0 fleet_attest_url=https://127.0.0.1:9 fleet_ntp_server=127.0.0.1:${ntpPort} BOOTIF=01-52-54-00-12-34-56\n`,
  );
  await writeFile(join(root, 'proc/mounts'), `securityfs ${join(root, 'sys/kernel/security')} securityfs rw 0 0\n`);
  await writeFile(join(root, 'proc/sys/kernel/random/boot_id'), '0f2b9c4e-5d6a-4b7c-8d9e-0a1b2c3d4e5f\n');
  await writeFile(join(root, 'sys/class/dmi/id/product_serial'), 'BENCH-1\n');
  await writeFile(join(root, 'sys/kernel/security/tpm0/binary_bios_measurements'), Buffer.alloc(41_000));
  await writeFile(join(root, 'sys/class/net/eth0/address'), '52:54:00:12:34:56\n');
  await writeFile(join(root, 'sys/class/net/eth0/operstate'), 'up\n');
  return root;
}

// The floor under agent_start_ms: Node starting an ES module that only connects to the socket.
const BARE = `import { connect } from 'node:net'; connect(process.argv.at(-1)).write('x');`;

/** ms from spawn to the first byte on the TPM socket; the process is stopped there. */
function startToFirstCommand(args: (socket: string) => string[], socket: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let t0 = 0;
    const server = createServer((conn) => {
      conn.once('data', () => {
        const ms = performance.now() - t0;
        child.kill('SIGKILL');
        conn.destroy();
        server.close();
        resolve(ms);
      });
    });
    server.on('error', reject);
    let child: ReturnType<typeof spawn>;
    server.listen(socket, () => {
      t0 = performance.now();
      child = spawn(process.execPath, args(socket), { stdio: 'ignore' });
      child.once('exit', () => {
        if (server.listening) {
          server.close();
          reject(new Error('the agent exited before its first TPM command'));
        }
      });
    });
  });
}

function medianOf(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}

export const suite: Suite = {
  title: 'Agent bundle (HookOS entrypoint)',
  async run(): Promise<Figure[]> {
    const dir = await mkdtemp(join(tmpdir(), 'fleet-bench-agent-'));
    const ntp = await SntpServer.start(0);
    try {
      const bundle = await buildAgent(join(dir, 'dist'));
      const kb = (await stat(bundle)).size / 1024;
      const capKb = (await stat(join(dir, 'dist', 'cap.node'))).size / 1024;
      const root = await fakeMachine(dir, ntp.port);
      const bare = join(dir, 'bare.mjs');
      await writeFile(bare, BARE);
      const agent = (socket: string) => [bundle, 'edge', '--root', root, '--tpm', `unix:${socket}`, '--console', '-', '--lldp-window', '30', '--tries', '1'];
      // Interleaved, so a slow spell of the machine weighs on both alike.
      const times: number[] = [];
      const floor: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        times.push(await startToFirstCommand(agent, join(dir, `tpm-${i}.sock`)));
        floor.push(await startToFirstCommand((socket) => [bare, socket], join(dir, `bare-${i}.sock`)));
      }
      const median = medianOf(times);
      return [
        { name: 'agent_bundle_kb', value: kb, unit: 'kB', goal: '≤ 300', note: `agent.mjs (minified), plus cap.node ${capKb.toFixed(0)} kB` },
        {
          name: 'agent_start_ms',
          value: median,
          unit: 'ms',
          goal: '≤ 150',
          note: `median of ${RUNS}; ${Math.min(...times).toFixed(0)}–${Math.max(...times).toFixed(0)} ms`,
        },
        {
          name: 'node_start_ms',
          value: medianOf(floor),
          unit: 'ms',
          note: 'the floor: node starting a module that only connects to the socket, interleaved with the above',
        },
        { name: 'agent_start_over_node_ms', value: median - medianOf(floor), unit: 'ms', note: "the agent's own part: agent_start_ms − node_start_ms" },
      ];
    } finally {
      await ntp.close();
      await rm(dir, { recursive: true, force: true });
    }
  },
};

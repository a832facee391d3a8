/**
 * The lab network delivering a node's UDP datagrams from the node's own address. On the real
 * network HookOS sends from its DHCP address, the node's declared one, and fleetd's receiver
 * journals that sender as HOOKOS_HOST, the address the runbook's `journalctl -t hookos
 * HOOKOS_HOST=<address>` names. QEMU's user network instead delivers the guest's datagrams to the
 * host's loopback from 127.0.0.1, so the relay takes them there and sends each again, unchanged,
 * from a network namespace of its own that holds the node's address on one end of a veth pair;
 * the other end, in this namespace, has only a point-to-point address (a /32 route to the node and
 * nothing else changes here), and the receiver listens on it.
 *
 * The namespace has no name: it lives as long as the relay's process, which dies with this one
 * (`--pdeathsig`), so the pair and its route go even when the test process is killed.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { atExit } from '../../swtpm/exit.js';

// The inbound socket is bound before unshare, so it stays on this namespace's loopback; the
// outbound one is made after, in the relay's own namespace, once the address is there.
const RELAY = `
import ctypes, os, socket, sys
inbound = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
inbound.bind(('127.0.0.1', 0))
if ctypes.CDLL(None, use_errno=True).unshare(0x40000000) != 0:
    raise OSError(ctypes.get_errno(), 'unshare(CLONE_NEWNET)')
print(os.getpid(), inbound.getsockname()[1], flush=True)
host, port = sys.stdin.readline().split()
outbound = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
outbound.bind((sys.argv[1], 0))
while True:
    outbound.sendto(inbound.recv(65535), (host, int(port)))
`;

export interface NodeUdpRelay {
  /** The port on 127.0.0.1 the node's datagrams come to (the guest's 10.0.2.2:<port>). */
  port: number;
  /** The address here that the node's datagrams arrive at, from the node's address: a receiver listens on it. */
  localAddress: string;
  /** Starts sending what comes in to `localAddress:port`; what came before waits in the socket. */
  deliverTo(port: number): void;
  close(): Promise<void>;
}

let made = 0;

export async function startNodeUdpRelay(nodeAddress: string): Promise<NodeUdpRelay> {
  // Per process and per relay: parallel test files never share an interface or an address.
  const n = made++;
  const nic = `fleet${process.pid}r${n}`.slice(0, 15);
  const localAddress = `169.254.${(process.pid >> 8) & 0xff}.${(process.pid + n) & 0xff || 1}`;
  const child = spawn('setpriv', ['--pdeathsig', 'KILL', 'python3', '-c', RELAY, nodeAddress], { stdio: ['pipe', 'pipe', 'pipe'] });
  const unregister = atExit(() => child.kill('SIGKILL'));
  const stderr: string[] = [];
  child.stderr.on('data', (b: Buffer) => stderr.push(b.toString()));
  // A relay killed first must not fail the write that would have pointed it somewhere.
  child.stdin.on('error', () => undefined);
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const close = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    unregister();
  };
  try {
    const [pid, port] = await new Promise<number[]>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', (l) => resolve(l.split(' ').map(Number)));
      void exited.then(() => reject(new Error(`the node's UDP relay exited: ${stderr.join('').trim()}`)));
    });
    const here = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    const there = (...args: string[]) => execFileSync('nsenter', [`--net=/proc/${pid}/ns/net`, 'ip', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    here('link', 'add', nic, 'type', 'veth', 'peer', 'name', 'node0', 'netns', String(pid));
    here('addr', 'add', localAddress, 'peer', nodeAddress, 'dev', nic);
    here('link', 'set', nic, 'up');
    there('addr', 'add', nodeAddress, 'peer', localAddress, 'dev', 'node0');
    there('link', 'set', 'node0', 'up');
    return { port: port!, localAddress, deliverTo: (to) => void child.stdin.write(`${localAddress} ${to}\n`), close };
  } catch (err) {
    await close();
    throw err;
  }
}

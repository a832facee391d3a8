/**
 * Two network namespaces joined by a veth pair, made for one test and removed after it: the
 * switch's side sends raw frames (python3, AF_PACKET), the machine's side captures. Names carry
 * the process id and a random part, so parallel runs never share a namespace; no frame leaves them.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { toHex } from '../../shared/bytes/hex.js';

export interface VethPair {
  /** The namespace and NIC frames are sent from. */
  switchNs: string;
  switchNic: string;
  /** The namespace and NIC the capture runs on. */
  hostNs: string;
  hostNic: string;
}

function ip(...args: string[]): string {
  return execFileSync('ip', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export function createVethPair(): VethPair {
  const id = `${process.pid}-${randomBytes(3).toString('hex')}`;
  const pair = { switchNs: `fleet-lldp-sw-${id}`, switchNic: 'sw0', hostNs: `fleet-lldp-host-${id}`, hostNic: 'boot0' };
  ip('netns', 'add', pair.switchNs);
  try {
    ip('netns', 'add', pair.hostNs);
    ip('link', 'add', pair.switchNic, 'netns', pair.switchNs, 'type', 'veth', 'peer', 'name', pair.hostNic, 'netns', pair.hostNs);
    ip('-n', pair.switchNs, 'link', 'set', pair.switchNic, 'up');
    ip('-n', pair.hostNs, 'link', 'set', pair.hostNic, 'up');
  } catch (err) {
    removeVethPair(pair);
    throw err;
  }
  return pair;
}

/** Deleting the namespaces deletes the veth pair with them; a namespace already gone is fine. */
export function removeVethPair(pair: VethPair): void {
  for (const ns of [pair.switchNs, pair.hostNs]) {
    try {
      ip('netns', 'del', ns);
    } catch {
      // never created, or removed already
    }
  }
}

const SEND = `
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
for frame in sys.argv[2:]:
    s.send(bytes.fromhex(frame))
`;

/** Sends `frames` in order, whole, from the switch's side. */
export function sendFrames(pair: VethPair, frames: Uint8Array[]): void {
  execFileSync('ip', ['netns', 'exec', pair.switchNs, 'python3', '-c', SEND, pair.switchNic, ...frames.map(toHex)], { stdio: ['ignore', 'ignore', 'pipe'] });
}

/**
 * Resolves once a packet socket is open in the host namespace (/proc/net/packet is per
 * namespace, and only the capture opens one there). libpcap opens it, binds it and sets its
 * filter in the one synchronous call, so frames sent after this are captured.
 */
export async function waitForCaptureSocket(pair: VethPair, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const sockets = execFileSync('ip', ['netns', 'exec', pair.hostNs, 'cat', '/proc/net/packet'], { encoding: 'utf8' }).trim().split('\n').slice(1);
    if (sockets.length > 0) return;
    if (Date.now() > deadline) throw new Error(`no packet socket opened in ${pair.hostNs} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

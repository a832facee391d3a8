/**
 * The switch on the boot NIC's port: QEMU's dgram netdev carries one Ethernet frame per UDP
 * datagram, so a host socket sends the LLDP frame into the guest's hub. Every second, where a
 * switch sends every 30 s: the agent's capture window can then stay short.
 */
import { createSocket } from 'node:dgram';

export interface LldpInjector {
  /** QEMU's end (its local port) and ours (its remote port). */
  ports: { qemuPort: number; hostPort: number };
  close(): void;
}

async function freeUdpPort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', r));
  const { port } = s.address();
  s.close();
  return port;
}

export async function startLldpInjector(frame: Uint8Array): Promise<LldpInjector> {
  const sock = createSocket('udp4');
  await new Promise<void>((r) => sock.bind(0, '127.0.0.1', r));
  // What the guest sends out of the NIC arrives here too; the switch ignores it.
  sock.on('message', () => undefined);
  const qemuPort = await freeUdpPort();
  // Before QEMU binds its port a datagram is lost, as a frame on a link that is down; the callback keeps that from becoming an 'error' event.
  const timer = setInterval(() => sock.send(frame, qemuPort, '127.0.0.1', () => undefined), 1000);
  return { ports: { qemuPort, hostPort: sock.address().port }, close: () => (clearInterval(timer), sock.close()) };
}

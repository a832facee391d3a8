import { createSocket, type Socket } from 'node:dgram';
import { NTP_PACKET, unixMsToNtp } from '../../agent/clock/sntp.js';

/** How the test server answers: a good server at `offsetMs` from ours, or one of the ways they go wrong. */
export type SntpBehaviour = 'good' | 'kiss-of-death' | 'unsynchronized' | 'wrong-origin' | 'short' | 'silent' | 'client-mode';

/** A stratum-2 SNTP server on 127.0.0.1 whose clock runs `offsetMs` ahead of this process's. */
export class SntpServer {
  requests = 0;
  private constructor(
    private readonly socket: Socket,
    readonly port: number,
    public offsetMs: number,
    public behaviour: SntpBehaviour,
  ) {}

  static async start(offsetMs: number, behaviour: SntpBehaviour = 'good', host = '127.0.0.1'): Promise<SntpServer> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, host, resolve));
    const server = new SntpServer(socket, socket.address().port, offsetMs, behaviour);
    socket.on('message', (msg, from) => server.answer(msg, from.address, from.port));
    return server;
  }

  private answer(req: Buffer, host: string, port: number): void {
    this.requests++;
    if (this.behaviour === 'silent' || req.length < NTP_PACKET) return;
    const b = Buffer.alloc(NTP_PACKET);
    const mode = this.behaviour === 'client-mode' ? 3 : 4;
    b[0] = ((this.behaviour === 'unsynchronized' ? 3 : 0) << 6) | (4 << 3) | mode;
    b[1] = this.behaviour === 'kiss-of-death' ? 0 : 2;
    if (this.behaviour === 'kiss-of-death') b.write('RATE', 12, 'latin1');
    // The origin timestamp echoes the request's transmit timestamp (RFC 4330 §5).
    if (this.behaviour === 'wrong-origin') b.fill(7, 24, 32);
    else req.copy(b, 24, 40, 48);
    const t = Date.now() + this.offsetMs;
    unixMsToNtp(t, b, 16);
    unixMsToNtp(t, b, 32);
    unixMsToNtp(t, b, 40);
    this.socket.send(this.behaviour === 'short' ? b.subarray(0, 40) : b, port, host);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}

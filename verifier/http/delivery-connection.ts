import type { Socket } from 'node:net';
import type { ServerResponse } from 'node:http';
import { entryOf, parseProcNetTcp, readProcNetTcpNow, type Connection } from '../install/tcp-ack.js';

/**
 * The connection a config or seed answer goes out on, as Installs.delivered judges it. Its ends
 * are taken now: Node forgets them once the socket is closed, and the kernel's record outlives it.
 * When the peer closes its side after the whole answer was handed over (a client that read it and
 * closes, as one that asked for `Connection: close` does), the kernel's count of unacknowledged
 * bytes is read at once, before fleetd answers the close with its own: nothing left there is every
 * byte acknowledged. Read later it may be gone, since a close_notify reaching a peer that already
 * closed is answered with a reset, which the kernel cannot tell from a node's lost answer.
 */
export function deliveryConnection(socket: Socket, response: ServerResponse, readTcp: () => string = readProcNetTcpNow): Connection {
  const conn: Connection = {
    localAddress: socket.localAddress,
    localPort: socket.localPort,
    remoteAddress: socket.remoteAddress,
    remotePort: socket.remotePort,
    get writableLength() {
      return socket.writableLength;
    },
    get destroyed() {
      return socket.destroyed;
    },
    endedCleanly: false,
    ackedWhenPeerClosed: false,
  };
  let errored = false;
  socket.once('error', () => {
    errored = true;
    conn.endedCleanly = false;
  });
  // Before the HTTP server's own listener, which ends fleetd's side at once.
  socket.prependOnceListener('end', () => {
    conn.endedCleanly = !errored;
    if (errored || !response.writableFinished || socket.writableLength > 0) return;
    conn.ackedWhenPeerClosed = entryOf(parseProcNetTcp(readTcp()), conn)?.txQueue === 0;
  });
  return conn;
}

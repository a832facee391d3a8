import type { Server as NetServer, Socket } from 'node:net';
import { peerAddress } from '../../shared/net/peer-address.js';

/**
 * What a connection may hold of the server before it asks anything. Node's request and header
 * timeouts run only once a request's first byte has come, so a peer that connects and stays
 * silent, before or after its TLS handshake, would keep its place under the connection cap for
 * good, and a thousand of them keep every machine out. So: a TLS handshake must end within
 * `handshakeMs`; a connection with no request under way closes after `idleMs` of silence (a
 * request being handled, however slow the inventory, is never cut); and one source address holds
 * at most `perSource` connections, so one host cannot take the cap.
 */
export interface ConnectionLimits {
  idleMs: number;
  handshakeMs: number;
  perSource: number;
  total: number;
}

/** A netbooting machine holds one or two connections; a NAT of a few dozen nodes stays under the per-source cap. */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = { idleMs: 10_000, handshakeMs: 10_000, perSource: 32, total: 1024 };

/**
 * Applies the limits to an http or https server. `tls`: the idle timer starts on the TLS socket once
 * its handshake is done (before, the handshake timeout holds); else on the TCP socket at accept.
 */
export function guardConnections(server: NetServer, limits: ConnectionLimits, tls: boolean): void {
  server.maxConnections = limits.total;
  const bySource = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const from = peerAddress(socket.remoteAddress ?? '');
    const held = bySource.get(from) ?? 0;
    if (held >= limits.perSource) return void socket.destroy();
    bySource.set(from, held + 1);
    socket.once('close', () => {
      const left = (bySource.get(from) ?? 1) - 1;
      if (left > 0) bySource.set(from, left);
      else bySource.delete(from);
    });
    if (!tls) idleUntilAsked(socket, limits.idleMs);
  });
  if (tls) server.on('secureConnection', (socket: Socket) => idleUntilAsked(socket, limits.idleMs));
  // While a request is handled the connection may be silent; once it is answered, the timer runs again.
  server.on('request', (req: { socket: Socket }, res: { once(e: 'finish', f: () => void): void }) => {
    req.socket.setTimeout(0);
    const again = () => {
      if (!req.socket.destroyed) req.socket.setTimeout(limits.idleMs);
    };
    res.once('finish', again);
  });
}

function idleUntilAsked(socket: Socket, idleMs: number): void {
  socket.setTimeout(idleMs);
  socket.on('timeout', () => socket.destroy());
}

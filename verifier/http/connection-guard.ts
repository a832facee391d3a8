import type { Server as NetServer, Socket } from 'node:net';
import { DEFAULT_GROUP_PREFIXES, type GroupPrefixes } from '../../shared/net/address-group.js';
import { AddressHoldings } from '../../shared/net/address-holdings.js';
import { peerAddress } from '../../shared/net/peer-address.js';

/**
 * What a connection may hold of the server before it asks anything. Node's request and header
 * timeouts run only once a request's first byte has come, so a peer that connects and stays
 * silent, before or after its TLS handshake, would keep its place under the connection cap for
 * good. So: a TLS handshake must end within `handshakeMs`; a connection with no request under way
 * closes after `idleMs` of silence (a request being handled, however slow the inventory, is never
 * cut); one source address holds at most `perSource` connections and one address group (its /24
 * or /64) `perGroup`; and past a cap a newcomer takes the place of a quiet connection of the
 * largest holder (address-holdings.ts), so many addresses filling the table shed each other, not
 * the machine that connects once.
 */
export interface ConnectionLimits {
  idleMs: number;
  handshakeMs: number;
  perSource: number;
  perGroup: number;
  total: number;
  groups: GroupPrefixes;
}

/** A netbooting machine holds one or two connections; a NAT of a few dozen nodes stays under the per-source cap. */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  idleMs: 10_000,
  handshakeMs: 10_000,
  perSource: 32,
  perGroup: 256,
  total: 1024,
  groups: DEFAULT_GROUP_PREFIXES,
};

interface Held {
  socket: Socket;
  /** A request is under way on it: never the one to go. */
  busy: boolean;
}

/**
 * Applies the limits to an http or https server. `tls`: the idle timer starts on the TLS socket once
 * its handshake is done (before, the handshake timeout holds); else on the TCP socket at accept.
 */
export function guardConnections(server: NetServer, limits: ConnectionLimits, tls: boolean): void {
  // Node's own cap refuses before fleetd can choose whom to shed: a backstop only.
  server.maxConnections = limits.total * 2;
  const held = new AddressHoldings<Held>({ perAddress: limits.perSource, perGroup: limits.perGroup, total: limits.total, groups: limits.groups });
  const bySocket = new WeakMap<Socket, Held>();
  server.on('connection', (socket: Socket) => {
    const from = peerAddress(socket.remoteAddress ?? '');
    const admission = held.admit(from, (h) => !h.busy);
    if (!admission.take) return void socket.destroy();
    if (admission.evict) {
      held.remove(admission.evict);
      admission.evict.socket.destroy();
    }
    const entry: Held = { socket, busy: false };
    held.add(entry, from);
    bySocket.set(socket, entry);
    socket.once('close', () => held.remove(entry));
    if (!tls) idleUntilAsked(socket, limits.idleMs);
  });
  if (tls) server.on('secureConnection', (socket: Socket) => idleUntilAsked(socket, limits.idleMs));
  // While a request is handled the connection may be silent; once it is answered, the timer runs again.
  server.on('request', (req: { socket: Socket }, res: { once(e: 'finish', f: () => void): void }) => {
    const entry = bySocket.get(tcpOf(req.socket));
    if (entry) entry.busy = true;
    req.socket.setTimeout(0);
    const again = () => {
      if (entry) entry.busy = false;
      if (!req.socket.destroyed) req.socket.setTimeout(limits.idleMs);
    };
    res.once('finish', again);
  });
}

/** The accepted TCP socket under a TLS one (Node keeps it as `_parent`), or the socket itself. */
function tcpOf(socket: Socket): Socket {
  return (socket as Socket & { _parent?: Socket })._parent ?? socket;
}

function idleUntilAsked(socket: Socket, idleMs: number): void {
  socket.setTimeout(idleMs);
  socket.on('timeout', () => socket.destroy());
}

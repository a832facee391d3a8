import type { Socket } from 'node:net';

/** How long fleetd reads on after ending its side, for the peer's own close. */
export const LINGER_MS = 5_000;

/**
 * After an answer to a request that asked to close (`Connection: close`), Node's HTTP server ends
 * the socket at once. fleetd's close_notify and FIN then race the peer's own close: a peer that
 * read the answer and closed meets them closed and answers with a reset, and the kernel forgets
 * the connection, and with it whether the answer was acknowledged (tcp-ack.ts); a loaded fleetd
 * loses that race often. So fleetd sends nothing more until the answer is judged (`judged`: the
 * peer's acknowledgement seen, or its own close, or the deadline), reading on meanwhile so the
 * peer's close is heard; then, as Apache's lingering close, it ends its side and reads on until the
 * peer's FIN, for at most `lingerMs`, so that no close_notify is left unread, which would make
 * fleetd's kernel reset the connection itself.
 */
export function closeOnceJudged(socket: Socket, judged: () => Promise<unknown>, lingerMs = LINGER_MS): void {
  socket.destroySoon = () => {
    // Its bytes are read, so none is left unread when it closes; a request after the answer is none.
    socket.resume();
    void judged().finally(() => {
      const timer = setTimeout(() => socket.destroy(), lingerMs);
      timer.unref();
      socket.once('close', () => clearTimeout(timer));
      socket.end();
    });
  };
}

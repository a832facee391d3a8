import type { Socket } from 'node:net';

/** How long fleetd reads on after ending its side, for the peer's own close. */
export const LINGER_MS = 5_000;

/**
 * After an answer to a request that asked to close (`Connection: close`), Node's HTTP server ends
 * the socket and closes it at once. Over TLS the peer's close_notify, sent as it closes on reading
 * the answer, is then unread, and the kernel resets a connection closed with unread data, which
 * makes a delivered answer look lost (tcp-ack.ts). So, as Apache's lingering close: end fleetd's
 * side (close_notify, then FIN, after every byte of the answer) and read on until the peer's FIN,
 * for at most `lingerMs`. Then the kernel's record of the connection tells an acknowledged answer
 * from a lost one, as for any other; a peer that never closes is cut off, and judged on that.
 */
export function lingerOnClose(socket: Socket, lingerMs = LINGER_MS): void {
  socket.destroySoon = () => {
    const timer = setTimeout(() => socket.destroy(), lingerMs);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
    socket.end();
    // Its bytes are read, so none is left unread when it closes; a request after the close is none.
    socket.resume();
  };
}

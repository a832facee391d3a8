/**
 * A datagram socket connected to journald's native socket (`unix-dgram`: Node has no unix
 * datagram sockets). Connected, so a full journald queue answers EAGAIN at once and the socket
 * says when it has room again, instead of the write blocking fleetd.
 */
import { constants } from 'node:os';
import unixDgram, { type UnixDgramSocket } from 'unix-dgram';
import { FleetError } from '../../shared/errors.js';

export const DEFAULT_JOURNAL_SOCKET = '/run/systemd/journal/socket';

/**
 * What became of one entry: `sent`; `busy`, journald's queue is full (wait for writable);
 * `down`, journald is gone (reconnect, keep the entry); `refused`, this entry can never go.
 */
export type SendOutcome = 'sent' | 'busy' | 'down' | 'refused';

export interface JournalSink {
  send(entry: Buffer): SendOutcome;
  /** Connects again after `down`; false while journald is still away. */
  reconnect(): boolean;
  /** `listener` runs when a `busy` sink can take more. */
  onWritable(listener: () => void): void;
  close(): void;
}

const { ECONNREFUSED, ECONNRESET, ENOENT, ENOTCONN, EPIPE } = constants.errno;
const GONE = new Set([ECONNREFUSED, ECONNRESET, ENOENT, ENOTCONN, EPIPE].map((n) => -n));
const CONGESTION = 1;

export class JournalSocket implements JournalSink {
  private socket: UnixDgramSocket | undefined;
  private writable: () => void = () => undefined;

  private constructor(readonly path: string) {}

  /** Connects to journald at `path`, or throws a FleetError that names the path. */
  static open(path: string): JournalSocket {
    const journal = new JournalSocket(path);
    const failure = journal.connect();
    if (failure) {
      throw new FleetError(
        'journal-unreachable',
        `cannot reach journald at ${path} (${failure}): is systemd-journald running? --journal-socket names another socket`,
      );
    }
    return journal;
  }

  send(entry: Buffer): SendOutcome {
    if (!this.socket) return 'down';
    // The callback runs synchronously, before send() returns.
    let outcome = 'sent' as SendOutcome;
    this.socket.send(entry, (err) => {
      if (err) outcome = err.code === CONGESTION ? 'busy' : GONE.has(err.code) ? 'down' : 'refused';
    });
    if (outcome === 'down') this.disconnect();
    return outcome;
  }

  reconnect(): boolean {
    this.disconnect();
    return this.connect() === undefined;
  }

  onWritable(listener: () => void): void {
    this.writable = listener;
  }

  close(): void {
    this.disconnect();
  }

  /** undefined once connected, else why not (an errno name). */
  private connect(): string | undefined {
    let failure: string | undefined;
    let socket: UnixDgramSocket;
    try {
      socket = unixDgram.createSocket('unix_dgram');
    } catch (err) {
      return errnoName((err as { code?: number }).code);
    }
    // connect() reports a failure as a synchronous 'error' event; send() reports to its callback.
    socket.on('error', (err) => (failure = errnoName(err.code)));
    socket.connect(this.path);
    if (failure) {
      socket.close();
      return failure;
    }
    socket.on('writable', () => this.writable());
    this.socket = socket;
    return undefined;
  }

  private disconnect(): void {
    this.socket?.close();
    this.socket = undefined;
  }
}

function errnoName(code: number | undefined): string {
  return Object.entries(constants.errno).find(([, n]) => -n === code)?.[0] ?? `error ${code}`;
}

/**
 * The part of the `unix-dgram` package (CommonJS, no types of its own) the journal writer uses. See
 * node_modules/unix-dgram/README.md and src/unix_dgram.cc. Callbacks run synchronously. On a
 * connected socket, `send` reports EAGAIN/ENOBUFS as an error whose code is 1 ("congestion") and
 * then emits 'writable' once the peer's queue has room; other failures carry the negated errno.
 */
declare module 'unix-dgram' {
  import type { EventEmitter } from 'node:events';

  export interface UnixDgramSocket extends EventEmitter {
    connect(path: string): void;
    bind(path: string): void;
    send(buf: Buffer, callback: (err?: Error & { code: number }) => void): void;
    close(): void;
    on(event: 'error', listener: (err: Error & { code: number }) => void): this;
    on(event: 'connect' | 'writable' | 'listening', listener: () => void): this;
    on(event: 'message', listener: (buf: Buffer) => void): this;
  }

  const unixDgram: { createSocket(type: 'unix_dgram', listener?: (buf: Buffer) => void): UnixDgramSocket };
  export default unixDgram;
}

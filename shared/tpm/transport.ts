import { open, type FileHandle } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { FleetError } from '../errors.js';
import { HEADER_SIZE } from './command.js';

/** Carries one TPM command and returns its response. One command is in flight at a time. */
export interface Transport {
  transmit(command: Uint8Array): Promise<Uint8Array>;
  close(): Promise<void>;
}

/** The largest response a TPM 2.0 sends (TPM_BUFFER_MAX on every TPM we know is 4096). */
const MAX_RESPONSE = 8192;

/** Serialises calls: a TPM device or swtpm socket must never see two commands interleaved. */
class Queue {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

/**
 * A kernel TPM character device: /dev/tpmrm0 (the resource manager, which swaps objects and
 * sessions for us) or /dev/tpm0. The kernel returns a whole response to one read.
 */
export class DeviceTransport implements Transport {
  private readonly queue = new Queue();
  private constructor(
    private readonly fh: FileHandle,
    readonly path: string,
  ) {}

  static async open(path = '/dev/tpmrm0'): Promise<DeviceTransport> {
    try {
      return new DeviceTransport(await open(path, 'r+'), path);
    } catch (err) {
      throw new FleetError('tpm-unavailable', `cannot open the TPM at ${path}: ${(err as Error).message}`, { cause: err });
    }
  }

  transmit(command: Uint8Array): Promise<Uint8Array> {
    return this.queue.run(async () => {
      await this.fh.write(command, 0, command.length, null);
      const buf = new Uint8Array(MAX_RESPONSE);
      const { bytesRead } = await this.fh.read(buf, 0, buf.length, null);
      return buf.slice(0, bytesRead);
    });
  }

  async close(): Promise<void> {
    await this.fh.close();
  }
}

export type SocketAddress = { path: string } | { host: string; port: number };

/**
 * swtpm's data channel (or the MS simulator's raw port): raw command bytes, no framing, the
 * response length taken from its header. Every response must arrive within `timeoutMs`.
 */
export class SocketTransport implements Transport {
  private readonly queue = new Queue();
  private pending: { resolve(b: Uint8Array): void; reject(e: Error): void } | null = null;
  private chunks: Buffer[] = [];
  private received = 0;
  private closedError: Error | null = null;

  private constructor(
    private readonly socket: Socket,
    private readonly timeoutMs: number,
    private readonly where: string,
  ) {
    socket.on('data', (d: Buffer) => this.onData(d));
    socket.on('error', (e) => this.fail(new FleetError('tpm-unavailable', `TPM socket ${where}: ${e.message}`)));
    socket.on('close', () => this.fail(new FleetError('tpm-unavailable', `TPM socket ${where} closed`)));
  }

  static connect(addr: SocketAddress, timeoutMs = 120_000): Promise<SocketTransport> {
    const where = 'path' in addr ? addr.path : `${addr.host}:${addr.port}`;
    return new Promise((resolve, reject) => {
      const s = connect(addr as never);
      const onError = (e: Error) => reject(new FleetError('tpm-unavailable', `cannot connect to the TPM at ${where}: ${e.message}`));
      s.once('error', onError);
      s.once('connect', () => {
        s.off('error', onError);
        s.setNoDelay(true);
        resolve(new SocketTransport(s, timeoutMs, where));
      });
    });
  }

  private fail(e: Error): void {
    this.closedError ??= e;
    const p = this.pending;
    this.pending = null;
    p?.reject(e);
  }

  private onData(d: Buffer): void {
    if (!this.pending) {
      this.fail(new FleetError('tpm-malformed', `TPM socket ${this.where} sent ${d.length} bytes nobody asked for`));
      this.socket.destroy();
      return;
    }
    this.chunks.push(d);
    this.received += d.length;
    if (this.received < HEADER_SIZE) return;
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    this.chunks = [all];
    const size = all.readUInt32BE(2);
    if (size < HEADER_SIZE || size > MAX_RESPONSE) {
      this.fail(new FleetError('tpm-malformed', `TPM response declares ${size} bytes`));
      this.socket.destroy();
      return;
    }
    if (this.received < size) return;
    if (this.received > size) {
      this.fail(new FleetError('tpm-malformed', `TPM response carries ${this.received - size} bytes beyond its declared size`));
      this.socket.destroy();
      return;
    }
    const p = this.pending;
    this.pending = null;
    this.chunks = [];
    this.received = 0;
    p.resolve(new Uint8Array(all.buffer, all.byteOffset, all.byteLength));
  }

  transmit(command: Uint8Array): Promise<Uint8Array> {
    return this.queue.run(
      () =>
        new Promise<Uint8Array>((resolve, reject) => {
          if (this.closedError) return reject(this.closedError);
          const timer = setTimeout(() => {
            this.fail(new FleetError('tpm-timeout', `the TPM at ${this.where} did not answer within ${this.timeoutMs} ms`));
            this.socket.destroy();
          }, this.timeoutMs);
          this.pending = {
            resolve: (b) => (clearTimeout(timer), resolve(b)),
            reject: (e) => (clearTimeout(timer), reject(e)),
          };
          this.socket.write(command);
        }),
    );
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.destroyed) return resolve();
      this.socket.once('close', () => resolve());
      this.socket.end();
    });
  }
}

/**
 * Opens a TPM named the way the CLI and kernel command line name it: a device path
 * (`/dev/tpmrm0`), `unix:/path/to/swtpm.sock`, or `tcp:host:port`.
 */
export async function openTransport(spec: string): Promise<Transport> {
  if (spec.startsWith('unix:')) return SocketTransport.connect({ path: spec.slice(5) });
  if (spec.startsWith('tcp:')) {
    const m = /^tcp:(.+):(\d+)$/.exec(spec);
    if (!m) throw new FleetError('tpm-unavailable', `TPM address ${spec} is not tcp:HOST:PORT`);
    return SocketTransport.connect({ host: m[1]!, port: Number(m[2]) });
  }
  return DeviceTransport.open(spec);
}

import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import { FleetError } from '../../shared/errors.js';

/**
 * SNTP (RFC 4330) client mode: one 48-byte request, one answer, checked before it is believed.
 * The request's transmit timestamp is random (as chrony's client does): the answer must echo it
 * as its originate timestamp, so an off-path sender cannot forge the time.
 */
export const NTP_PACKET = 48;
/** Seconds from 1900-01-01 (NTP's era 0) to 1970-01-01. */
const NTP_UNIX_OFFSET = 2_208_988_800;

/** A server that says stop (stratum 0): RFC 4330 §8 says a client then asks it no more. */
export const KISS_OF_DEATH = 'sntp-kiss-of-death';

export interface SntpAnswer {
  /** The server's clock minus ours, in ms: ((T2 − T1) + (T3 − T4)) / 2. */
  offsetMs: number;
  /** The round trip, minus the server's own time: (T4 − T1) − (T3 − T2). */
  delayMs: number;
  stratum: number;
  /** The server's transmit time (Unix ms). */
  serverTimeMs: number;
}

export function sntpRequest(nonce: Uint8Array): Buffer {
  const b = Buffer.alloc(NTP_PACKET);
  b[0] = (0 << 6) | (4 << 3) | 3; // LI 0, version 4, mode 3 (client)
  Buffer.from(nonce).copy(b, 40, 0, 8);
  return b;
}

/** An NTP timestamp as Unix ms. A seconds field below 2^31 is in era 1 (after 2036-02-07), per RFC 4330 §3. */
export function ntpToUnixMs(b: Buffer, at: number): number {
  const secs = b.readUInt32BE(at);
  const frac = b.readUInt32BE(at + 4);
  const era = secs < 0x8000_0000 ? 0x1_0000_0000 : 0;
  return (secs + era - NTP_UNIX_OFFSET) * 1000 + (frac / 0x1_0000_0000) * 1000;
}

export function unixMsToNtp(ms: number, b: Buffer, at: number): void {
  const secs = Math.floor(ms / 1000) + NTP_UNIX_OFFSET;
  b.writeUInt32BE(secs % 0x1_0000_0000, at);
  b.writeUInt32BE(Math.floor(((ms % 1000) / 1000) * 0x1_0000_0000), at + 4);
}

/**
 * Checks an answer against the request's nonce and computes the offset. `t1`/`t4` are our clock
 * when the request left and the answer arrived. Throws a FleetError naming what is wrong.
 */
export function readSntpAnswer(answer: Buffer, nonce: Uint8Array, t1: number, t4: number): SntpAnswer {
  const bad = (why: string) => new FleetError('sntp', `the NTP answer ${why}`);
  if (answer.length < NTP_PACKET) throw bad(`is ${answer.length} bytes, not ${NTP_PACKET}`);
  const li = answer[0]! >> 6;
  const version = (answer[0]! >> 3) & 7;
  const mode = answer[0]! & 7;
  const stratum = answer[1]!;
  if (mode !== 4) throw bad(`is mode ${mode}, not a server's (4)`);
  if (version < 3 || version > 4) throw bad(`is NTP version ${version}`);
  if (stratum === 0)
    throw new FleetError(
      KISS_OF_DEATH,
      `the NTP answer is a kiss-o'-death (${answer
        .subarray(12, 16)
        .toString('latin1')
        .replace(/[^\x20-\x7e]/g, '?')})`,
    );
  if (li === 3 || stratum >= 16) throw bad('says the server is not synchronized');
  if (!answer.subarray(24, 32).equals(Buffer.from(nonce))) throw bad('does not answer our request (its originate timestamp differs)');
  if (answer.readBigUInt64BE(40) === 0n || answer.readBigUInt64BE(32) === 0n) throw bad('has no receive or transmit time');
  const t2 = ntpToUnixMs(answer, 32);
  const t3 = ntpToUnixMs(answer, 40);
  return { offsetMs: (t2 - t1 + (t3 - t4)) / 2, delayMs: t4 - t1 - (t3 - t2), stratum, serverTimeMs: t3 };
}

/** Asks `host:port` up to `tries` times, `timeoutMs` each; the first checked answer wins. */
export async function querySntp(host: string, port: number, opts: { timeoutMs?: number; tries?: number; now?: () => number } = {}): Promise<SntpAnswer> {
  const now = opts.now ?? Date.now;
  const tries = opts.tries ?? 3;
  let last: unknown;
  for (let i = 0; i < tries; i++) {
    try {
      return await once(host, port, opts.timeoutMs ?? 1000, now);
    } catch (err) {
      last = err;
      if (err instanceof FleetError && err.code === KISS_OF_DEATH) break;
    }
  }
  throw last instanceof FleetError ? last : new FleetError('sntp', `no NTP answer from ${host}:${port}: ${(last as Error).message}`);
}

function once(host: string, port: number, timeoutMs: number, now: () => number): Promise<SntpAnswer> {
  return new Promise((resolve, reject) => {
    const socket = createSocket(isIPv6(host) ? 'udp6' : 'udp4');
    const nonce = randomBytes(8);
    let t1 = 0;
    const done = (err: Error | null, answer?: SntpAnswer) => {
      clearTimeout(timer);
      socket.close();
      if (err) reject(err);
      else resolve(answer!);
    };
    const timer = setTimeout(() => done(new FleetError('sntp', `no NTP answer from ${host}:${port} within ${timeoutMs} ms`)), timeoutMs);
    socket.on('error', (err) => done(new FleetError('sntp', `NTP to ${host}:${port}: ${err.message}`)));
    socket.on('message', (msg, rinfo) => {
      const t4 = now();
      // Anything else arriving on our port is not the answer; keep waiting for it.
      if (rinfo.port !== port) return;
      try {
        done(null, readSntpAnswer(msg, nonce, t1, t4));
      } catch (err) {
        done(err as Error);
      }
    });
    t1 = now();
    socket.send(sntpRequest(nonce), port, host);
  });
}

import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isIPv4 } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { peerAddress } from '../../shared/net/peer-address.js';

/** One line of /proc/net/tcp or tcp6: the connection's ends and the bytes the peer has not yet acknowledged. */
export interface TcpEntry {
  local: { ip: string; port: number };
  remote: { ip: string; port: number };
  state: number;
  txQueue: number;
}

/** 0100007F:1F90 → 127.0.0.1:8080 (v4 is one little-endian word; v6 four). */
function endpoint(hex: string): { ip: string; port: number } {
  const [addr = '', port = ''] = hex.split(':');
  const bytes: number[] = [];
  for (let w = 0; w < addr.length; w += 8) {
    const word = addr.slice(w, w + 8);
    for (let b = 6; b >= 0; b -= 2) bytes.push(parseInt(word.slice(b, b + 2), 16));
  }
  let ip: string;
  if (bytes.length === 4) ip = bytes.join('.');
  else {
    const groups = Array.from({ length: 8 }, (_, i) => ((bytes[2 * i]! << 8) | bytes[2 * i + 1]!).toString(16));
    ip = groups.join(':');
    // An IPv4 peer on a dual-stack socket: ::ffff:a.b.c.d
    if (groups.slice(0, 5).every((g) => g === '0') && groups[5] === 'ffff') ip = bytes.slice(12).join('.');
  }
  return { ip, port: parseInt(port, 16) };
}

/** Parses /proc/net/tcp or /proc/net/tcp6. Malformed lines are skipped. */
export function parseProcNetTcp(text: string): TcpEntry[] {
  const out: TcpEntry[] = [];
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 5 || !f[1]?.includes(':') || !f[2]?.includes(':') || !f[4]?.includes(':')) continue;
    const [tx] = f[4].split(':');
    out.push({ local: endpoint(f[1]), remote: endpoint(f[2]), state: parseInt(f[3] ?? '', 16), txQueue: parseInt(tx ?? '', 16) });
  }
  return out;
}

/** Long-hand IPv6 in /proc; Node gives short form. Compare them as parsed numbers. */
function sameIp(a: string, b: string): boolean {
  const x = peerAddress(a);
  const y = peerAddress(b);
  if (isIPv4(x) || isIPv4(y)) return x === y;
  const expand = (ip: string) => {
    const [head = '', tail = ''] = ip.split('::');
    const h = head ? head.split(':') : [];
    const t = tail ? tail.split(':') : [];
    return [...h, ...Array(8 - h.length - t.length).fill('0'), ...t].map((g) => parseInt(g || '0', 16));
  };
  return expand(x).join(':') === expand(y).join(':');
}

export interface Connection {
  localAddress?: string | undefined;
  localPort?: number | undefined;
  remoteAddress?: string | undefined;
  remotePort?: number | undefined;
  writableLength: number;
  destroyed: boolean;
  /** The peer closed its side (a FIN, not a reset), and the socket saw no error. */
  endedCleanly?: boolean;
  /**
   * When the peer closed its side, after the whole answer was handed to the kernel, the kernel
   * held nothing unacknowledged for it: every byte arrived, whatever happens to the connection
   * after (fleetd's own close_notify and FIN reaching a peer gone may be answered with a reset).
   */
  ackedWhenPeerClosed?: boolean;
}

/** The kernel's entry for the connection `conn` names, if it has one. */
export function entryOf(entries: TcpEntry[], conn: Connection): TcpEntry | undefined {
  const { localAddress, localPort, remoteAddress, remotePort } = conn;
  if (!localAddress || !remoteAddress || localPort === undefined || remotePort === undefined) return undefined;
  return entries.find(
    (e) => e.local.port === localPort && e.remote.port === remotePort && sameIp(e.local.ip, localAddress) && sameIp(e.remote.ip, remoteAddress),
  );
}

/** /proc/net/tcp and tcp6 now, for a decision that cannot wait for the next turn of the loop. */
export function readProcNetTcpNow(): string {
  return ['/proc/net/tcp', '/proc/net/tcp6']
    .map((p) => {
      try {
        return readFileSync(p, 'utf8');
      } catch {
        return '';
      }
    })
    .join('\n');
}

async function readProcNetTcp(): Promise<string> {
  const parts = await Promise.all(['/proc/net/tcp', '/proc/net/tcp6'].map((p) => readFile(p, 'utf8').catch(() => '')));
  return parts.join('\n');
}

/**
 * Resolves true once the peer has acknowledged every byte written to `conn` (nothing left in
 * Node's buffer, and the kernel's tx_queue for the connection at 0); false when the kernel no
 * longer knows the connection (a reset), Node never handed it every byte, or the deadline passes.
 * This is how "served" is told from "sent": a config the node's kernel did not take whole must
 * stay. A connection Node has closed still counts while the kernel keeps it (FIN_WAIT, TIME_WAIT).
 * One the kernel has dropped counts only when the peer closed it cleanly after every byte was
 * handed over, as a client that exits once it read the answer does: the kernel drops a connection
 * the peer closed without a reset only once the peer acknowledged fleetd's FIN, which follows
 * every byte. A peer that closed its side when the kernel held nothing unacknowledged for the
 * whole answer counts, however the connection ends after (Connection.ackedWhenPeerClosed).
 */
export async function waitAcknowledged(
  conn: Connection,
  opts: { deadlineMs: number; pollMs?: number; read?: () => Promise<string>; now?: () => number } = { deadlineMs: 30_000 },
): Promise<boolean> {
  const now = opts.now ?? Date.now;
  const read = opts.read ?? readProcNetTcp;
  const until = now() + opts.deadlineMs;
  const { localAddress, localPort, remoteAddress, remotePort } = conn;
  if (!localAddress || !remoteAddress || localPort === undefined || remotePort === undefined) return false;
  for (;;) {
    if (conn.ackedWhenPeerClosed === true) return true;
    if (conn.destroyed && conn.writableLength > 0) return false;
    if (conn.writableLength === 0) {
      const entry = entryOf(parseProcNetTcp(await read()), conn);
      if (entry?.txQueue === 0) return true;
      // Dropped by the kernel: decide once Node has heard how the connection ended.
      if (!entry && conn.destroyed) return conn.endedCleanly === true;
    }
    if (now() >= until) return false;
    await sleep(opts.pollMs ?? 10);
  }
}

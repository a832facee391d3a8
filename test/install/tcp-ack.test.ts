import { describe, expect, it } from 'vitest';
import { parseProcNetTcp, waitAcknowledged, type Connection } from '../../verifier/install/tcp-ack.js';

const HEADER = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode';
const HEADER6 =
  '  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode';
// Lines as Linux writes them (recorded on this machine, inode numbers changed).
const V4 = `${HEADER}
   0: 0100007F:20FB 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 41111 1 0000000000000000 100 0 0 10 0
   7: 0100007F:20FB 0100007F:DB0C 01 00189C00:00000000 04:00000010 00000000     0        0 41112 2 0000000000000000 20 0 0 12 -1
  14: 0B01000A:01BB 0101000A:C350 01 00000000:00000480 00:00000000 00000000     0        0 41113 2 0000000000000000 20 8 0 10 -1
`;
const V6 = `${HEADER6}
   0: 00000000000000000000000001000000:20FB 00000000000000000000000001000000:A001 01 00000A00:00000000 01:00000014 00000000     0        0 41114 1 0000000000000000 20 4 30 10 -1
   1: 0000000000000000FFFF00000100007F:20FB 0000000000000000FFFF00000B01000A:C351 01 00000000:00000000 00:00000000 00000000     0        0 41115 1 0000000000000000 20 4 30 10 -1
   2: B80D0120000000000000000001000000:20FB B80D0120000000000000000002000000:C352 01 00000010:00000000 00:00000000 00000000     0        0 41116 1 0000000000000000 20 4 30 10 -1
`;

describe('/proc/net/tcp', () => {
  it('reads IPv4 ends, state and tx_queue', () => {
    expect(parseProcNetTcp(V4)).toEqual([
      { local: { ip: '127.0.0.1', port: 8443 }, remote: { ip: '0.0.0.0', port: 0 }, state: 0x0a, txQueue: 0 },
      { local: { ip: '127.0.0.1', port: 8443 }, remote: { ip: '127.0.0.1', port: 0xdb0c }, state: 1, txQueue: 0x189c00 },
      { local: { ip: '10.0.1.11', port: 443 }, remote: { ip: '10.0.1.1', port: 0xc350 }, state: 1, txQueue: 0 },
    ]);
  });

  it('reads IPv6 ends, and an IPv4 peer on a dual-stack socket as IPv4', () => {
    expect(parseProcNetTcp(V6).map((e) => [e.local.ip, e.remote.ip, e.remote.port, e.txQueue])).toEqual([
      ['0:0:0:0:0:0:0:1', '0:0:0:0:0:0:0:1', 0xa001, 0xa00],
      ['127.0.0.1', '10.0.1.11', 0xc351, 0],
      ['2001:db8:0:0:0:0:0:1', '2001:db8:0:0:0:0:0:2', 0xc352, 0x10],
    ]);
  });

  it('skips lines it cannot read, and never throws', () => {
    expect(parseProcNetTcp('')).toEqual([]);
    expect(parseProcNetTcp(`${HEADER}\ngarbage\n  1: nocolon nocolon 01 00:00\n\0\0\0`)).toEqual([]);
  });
});

/** A connection with ends as Node reports them; the kernel's view comes from `lines`. */
function conn(over: Partial<Connection> = {}): Connection {
  return {
    localAddress: '::ffff:127.0.0.1',
    localPort: 8443,
    remoteAddress: '::ffff:127.0.0.1',
    remotePort: 0xdb0c,
    writableLength: 0,
    destroyed: false,
    ...over,
  };
}
const line = (tx: number) =>
  `${HEADER}\n   7: 0100007F:20FB 0100007F:DB0C 01 ${tx.toString(16).padStart(8, '0').toUpperCase()}:00000000 00:00000000 00000000     0 0 1 2 0 20 0 0 12 -1\n`;

describe("waiting for the peer's acknowledgement", () => {
  it("acknowledged once the kernel's tx_queue for the connection drains to 0", async () => {
    const queue = [0x900, 0x400, 0];
    let reads = 0;
    expect(await waitAcknowledged(conn(), { deadlineMs: 10_000, pollMs: 1, read: async () => line(queue[Math.min(reads++, 2)]!) })).toBe(true);
    expect(reads).toBe(3);
  });

  it('not acknowledged when the deadline passes with bytes outstanding', async () => {
    let t = 0;
    expect(await waitAcknowledged(conn(), { deadlineMs: 100, pollMs: 1, now: () => (t += 30), read: async () => line(0x200) })).toBe(false);
  });

  it("not acknowledged while Node still holds bytes, even when the kernel's queue is empty", async () => {
    let t = 0;
    expect(await waitAcknowledged(conn({ writableLength: 10 }), { deadlineMs: 100, pollMs: 1, now: () => (t += 30), read: async () => line(0) })).toBe(false);
  });

  it('a connection Node has closed counts once the kernel shows every byte acknowledged (fleetd closed first: FIN_WAIT, TIME_WAIT)', async () => {
    const queue = [0x300, 0];
    let reads = 0;
    expect(await waitAcknowledged(conn({ destroyed: true }), { deadlineMs: 10_000, pollMs: 1, read: async () => line(queue[Math.min(reads++, 1)]!) })).toBe(
      true,
    );
  });

  it('a connection the kernel has dropped counts only when the peer closed it cleanly (a FIN, no error) after every byte was handed over', async () => {
    const none = async () => HEADER;
    expect(await waitAcknowledged(conn({ destroyed: true, endedCleanly: true }), { deadlineMs: 100, read: none })).toBe(true);
    expect(await waitAcknowledged(conn({ destroyed: true, endedCleanly: false }), { deadlineMs: 100, read: none })).toBe(false);
    expect(await waitAcknowledged(conn({ destroyed: true, endedCleanly: true, writableLength: 5 }), { deadlineMs: 100, read: none })).toBe(false);
    // Nothing unacknowledged when the peer closed: a reset after (fleetd's close_notify reaching a closed peer) changes nothing.
    expect(await waitAcknowledged(conn({ destroyed: true, endedCleanly: false, ackedWhenPeerClosed: true }), { deadlineMs: 100, read: none })).toBe(true);
    expect(await waitAcknowledged(conn({ destroyed: true, endedCleanly: false, ackedWhenPeerClosed: false }), { deadlineMs: 100, read: none })).toBe(false);
  });

  it('not acknowledged when the connection is gone: bytes Node never handed over, absent from the table (a reset), or without ends', async () => {
    expect(await waitAcknowledged(conn({ destroyed: true, writableLength: 100 }), { deadlineMs: 100, read: async () => line(0) })).toBe(false);
    expect(await waitAcknowledged(conn({ remotePort: 1 }), { deadlineMs: 100, read: async () => line(0) })).toBe(false);
    expect(await waitAcknowledged(conn({ remoteAddress: undefined }), { deadlineMs: 100, read: async () => line(0) })).toBe(false);
  });

  it('matches IPv6 ends however they are written', async () => {
    const v6 = `${HEADER6}\n   0: B80D0120000000000000000001000000:20FB B80D0120000000000000000002000000:C352 01 00000000:00000000 00:00000000 00000000     0 0 1 1 0 20 4 30 10 -1\n`;
    expect(
      await waitAcknowledged(conn({ localAddress: '2001:db8::1', remoteAddress: '2001:0db8:0:0::2', remotePort: 0xc352 }), {
        deadlineMs: 100,
        read: async () => v6,
      }),
    ).toBe(true);
  });
});

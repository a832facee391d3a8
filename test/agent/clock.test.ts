import { afterEach, describe, expect, it } from 'vitest';
import { CLOCK_LINES, CLOCK_WHY } from '../../agent/clock/lines.js';
import { setClock } from '../../agent/clock/set-clock.js';
import { matching, within } from '../line-pattern.js';
import { ntpToUnixMs, querySntp, readSntpAnswer, sntpRequest, unixMsToNtp } from '../../agent/clock/sntp.js';
import { Chrony } from './chrony.js';
import { SntpServer, type SntpBehaviour } from './sntp-server.js';

let server: SntpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('NTP timestamps', () => {
  it('round-trip Unix ms, in era 0 and after 2036 (era 1)', () => {
    const b = Buffer.alloc(8);
    for (const ms of [Date.parse('2026-11-30T07:00:00.250Z'), Date.parse('2036-02-07T06:28:16Z'), Date.parse('2040-01-01T00:00:00.5Z')]) {
      unixMsToNtp(ms, b, 0);
      expect(ntpToUnixMs(b, 0)).toBeCloseTo(ms, 0);
    }
  });

  it('an answer is checked before it is believed', () => {
    const nonce = Buffer.from('01234567');
    const good = Buffer.alloc(48);
    good[0] = (4 << 3) | 4;
    good[1] = 1;
    nonce.copy(good, 24);
    unixMsToNtp(1_800_000_000_000, good, 32);
    unixMsToNtp(1_800_000_000_010, good, 40);
    const a = readSntpAnswer(good, nonce, 1_799_999_999_000, 1_799_999_999_100);
    // ((T2 − T1) + (T3 − T4)) / 2 = (1000 + 910) / 2; delay = 100 − 10.
    expect(a.offsetMs).toBeCloseTo(955, 3);
    expect(a.delayMs).toBeCloseTo(90, 3);
    expect(() => readSntpAnswer(good.subarray(0, 47), nonce, 0, 0)).toThrow(/is 47 bytes/);
    expect(() => readSntpAnswer(good, Buffer.from('76543210'), 0, 0)).toThrow(/originate timestamp differs/);
    const noTransmit = Buffer.from(good);
    noTransmit.fill(0, 40, 48);
    expect(() => readSntpAnswer(noTransmit, nonce, 0, 0)).toThrow(/no receive or transmit time/);
    const v2 = Buffer.from(good);
    v2[0] = (2 << 3) | 4;
    expect(() => readSntpAnswer(v2, nonce, 0, 0)).toThrow(/version 2/);
  });

  it('a request is version 4 client mode and carries its nonce as the transmit timestamp', () => {
    const r = sntpRequest(Buffer.from('abcdefgh'));
    expect(r.length).toBe(48);
    expect(r[0]).toBe(0x23);
    expect(r.subarray(40).toString()).toBe('abcdefgh');
  });
});

describe('the clock from fleet_ntp_server (a real SNTP server on loopback)', () => {
  it('asks the server and sets the clock to its time; says how far off it was', async () => {
    server = await SntpServer.start(3_600_000);
    const set: number[] = [];
    const line = await setClock({ host: '127.0.0.1', port: server.port }, { set: async (ms) => void set.push(ms) });
    // An hour, to the round trip's jitter (as the edge-agent test reads it): 3599.9xx or 3600.xxx s.
    expect(line).toMatch(matching(CLOCK_LINES.set, `127.0.0.1:${server.port}`, /3599\.9\d\d|3600\.\d{3}/, 'behind', '2'));
    expect(set).toHaveLength(1);
    expect(Math.abs(set[0]! - (Date.now() + 3_600_000))).toBeLessThan(2000);
  });

  it('a real NTP server (chronyd): its answer is read, and a clock that agrees with it is left as is', async () => {
    const chrony = await Chrony.start();
    try {
      const answer = await querySntp('127.0.0.1', chrony.port);
      expect(answer.stratum).toBe(3);
      expect(Math.abs(answer.offsetMs)).toBeLessThan(500);
      const set: number[] = [];
      expect(await setClock({ host: '127.0.0.1', port: chrony.port }, { set: async (ms) => void set.push(ms) })).toMatch(
        matching(CLOCK_LINES.close, /\d+/, `127.0.0.1:${chrony.port}`),
      );
      expect(set).toEqual([]);
    } finally {
      await chrony.stop();
    }
  });

  it('leaves a clock that is already right alone', async () => {
    server = await SntpServer.start(0);
    const set: number[] = [];
    expect(await setClock({ host: '127.0.0.1', port: server.port }, { set: async (ms) => void set.push(ms) })).toMatch(
      matching(CLOCK_LINES.close, /\d+/, `127.0.0.1:${server.port}`),
    );
    expect(set).toEqual([]);
  });

  it.each<[SntpBehaviour, RegExp]>([
    ['kiss-of-death', /kiss-o'-death \(RATE\)/],
    ['unsynchronized', /not synchronized/],
    ['wrong-origin', /does not answer our request/],
    ['short', /is 40 bytes/],
    ['client-mode', /mode 3, not a server's/],
    ['silent', /no NTP answer from 127\.0\.0\.1:\d+ within 200 ms/],
  ])('a server that answers %s: the clock stays, and the line says why', async (behaviour, why) => {
    server = await SntpServer.start(3_600_000, behaviour);
    const set: number[] = [];
    const line = await setClock(
      { host: '127.0.0.1', port: server.port },
      { set: async (ms) => void set.push(ms), query: (h, p) => querySntp(h, p, { timeoutMs: 200, tries: 2 }) },
    );
    expect(line).toMatch(matching(CLOCK_LINES.kept, `127.0.0.1:${server.port}`, new RegExp(`.*${why.source}.*`), /\S+Z/));
    expect(set).toEqual([]);
    // Each failed try is tried again, but a kiss-o'-death means stop (RFC 4330 §8).
    expect(server.requests).toBe(behaviour === 'kiss-of-death' ? 1 : 2);
  });

  it('a time before fleet existed, or a setter that fails, leaves the clock and says so', async () => {
    server = await SntpServer.start(-Date.now() + Date.parse('2001-01-01T00:00:00Z'));
    expect(await setClock({ host: '127.0.0.1', port: server.port }, { set: async () => undefined })).toMatch(
      matching(CLOCK_LINES.kept, `127.0.0.1:${server.port}`, within(CLOCK_WHY.implausible, /2001-01-01T\S+Z/), /\S+Z/),
    );
    server.offsetMs = 60_000;
    expect(
      await setClock(
        { host: '127.0.0.1', port: server.port },
        { set: async () => Promise.reject(new Error('date: cannot set date: Operation not permitted')) },
      ),
    ).toMatch(matching(CLOCK_LINES.kept, `127.0.0.1:${server.port}`, CLOCK_WHY.setFailed('date: cannot set date: Operation not permitted'), /\S+Z/));
  });
});

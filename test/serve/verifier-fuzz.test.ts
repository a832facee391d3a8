import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReport, finishRequest, startRequest } from '../../agent/attest/attest-once.js';
import { AttestationKeys } from '../../agent/tpm/attestation-keys.js';
import { checkValue } from '../../shared/wire/validate.js';
import { type FinishRequest, PATHS, StartRequest, type StartResponse } from '../../shared/wire/schemas.js';
import { startSession } from '../../verifier/attest/challenge.js';
import { checkEvidence } from '../../verifier/attest/evidence.js';
import { Refusal } from '../../verifier/attest/refusal.js';
import { SessionStore, type Session } from '../../verifier/attest/session-store.js';
import { buildServer } from '../../verifier/http/server.js';
import { startRig, type Rig } from '../swtpm/rig.js';

let rig: Rig;
let session: Session;
let finish: FinishRequest;
let start: StartRequest;

beforeAll(async () => {
  rig = await startRig();
  const keys = await AttestationKeys.open(rig.tpm);
  start = startRequest(keys, rig.boot);
  const s = startSession(new SessionStore(), start, '127.0.0.1');
  session = s.session;
  finish = await finishRequest(keys, s.response as StartResponse, buildReport(session.id, rig.boot), rig.boot.eventLog);
  await keys.close();
});
afterAll(() => rig.close());

/** Flips bits inside one base64 field of the real finish body, re-encoding it validly. */
function flipField(body: FinishRequest, path: 'report' | 'eventLog' | 'attest' | 'signature' | 'secret', at: number, bit: number): FinishRequest {
  const edit = (b64: string) => {
    const b = Buffer.from(b64, 'base64');
    if (b.length) b[at % b.length]! ^= 1 << bit;
    return b.toString('base64');
  };
  switch (path) {
    case 'report':
      return { ...body, report: edit(body.report) };
    case 'eventLog':
      return { ...body, eventLog: edit(body.eventLog!) };
    case 'attest':
      return { ...body, quote: { ...body.quote, attest: edit(body.quote.attest) } };
    case 'signature':
      return { ...body, quote: { ...body.quote, signature: edit(body.quote.signature) } };
    case 'secret':
      return { ...body, secrets: body.secrets.map((s, i) => (i === 0 ? { ...s, secret: edit(s.secret) } : s)) };
  }
}

describe('the verifier under fuzz', () => {
  it('the recorded attestation is accepted as it is', () => {
    expect(checkEvidence(session, finish).proven).toHaveLength(2);
  });

  it('any bit flipped in any signed or proving field is refused with a protocol verdict', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('report', 'eventLog', 'attest', 'signature', 'secret' as const),
        fc.nat(),
        fc.integer({ min: 0, max: 7 }),
        (path, at, bit) => {
          const body = flipField(finish, path, at, bit);
          let err: unknown;
          try {
            checkEvidence(session, body);
          } catch (e) {
            err = e;
          }
          expect(err).toBeInstanceOf(Refusal);
        },
      ),
      { numRuns: 600 },
    );
  });

  it('any PCR value changed is refused', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 23 }), fc.stringMatching(/^[0-9a-f]{64}$/), (i, v) => {
        fc.pre(finish.pcrs[String(i)] !== v);
        expect(() => checkEvidence(session, { ...finish, pcrs: { ...finish.pcrs, [String(i)]: v } })).toThrow(Refusal);
      }),
      { numRuns: 200 },
    );
  });

  it('the HTTP server answers arbitrary bodies with 400 or a verdict, never 500', async () => {
    const app = buildServer({ service: rig.service });
    const bodies = fc.oneof(
      fc.jsonValue(),
      fc.record({ session: fc.string(), secrets: fc.anything(), report: fc.string(), quote: fc.anything(), pcrs: fc.anything(), eventLog: fc.anything() }),
      fc.constant({ ...finish, session: 'x'.repeat(30) }),
      fc.record({ serial: fc.string(), mac: fc.string(), eks: fc.anything(), ak: fc.string() }),
    );
    await fc.assert(
      fc.asyncProperty(bodies, fc.constantFrom(PATHS.start, PATHS.finish), async (body, url) => {
        const res = await app.inject({ method: 'POST', url, payload: JSON.stringify(body) ?? 'null', headers: { 'content-type': 'application/json' } });
        expect([200, 400]).toContain(res.statusCode);
        if (res.statusCode === 200) expect(JSON.parse(res.body)).toHaveProperty('verdict');
      }),
      { numRuns: 400 },
    );
    const broken = await app.inject({ method: 'POST', url: PATHS.start, payload: '{"serial": ', headers: { 'content-type': 'application/json' } });
    expect(broken.statusCode).toBe(400);
    await app.close();
  });

  it('start refuses malformed keys inside a valid body with a verdict', async () => {
    let peers = 0;
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 0, maxLength: 300 }), fc.constantFrom('ek', 'ak', 'cert' as const), async (junk, which) => {
        const b64 = Buffer.from(junk).toString('base64');
        const body: StartRequest =
          which === 'ak'
            ? { ...start, ak: b64 }
            : { ...start, eks: start.eks.map((e, i) => (i === 0 ? (which === 'ek' ? { ...e, public: b64 } : { ...e, certificate: b64 }) : e)) };
        checkValue(StartRequest, body, 'bad-request', 'body');
        // Each case its own peer: a refused start counts against its peer's share of sessions.
        const answer = rig.service.start(body, { peer: `10.7.${(peers >> 8) & 255}.${peers++ & 255}`, requestId: 'fuzz' });
        expect(answer).toHaveProperty('verdict');
      }),
      { numRuns: 300 },
    );
  });
});

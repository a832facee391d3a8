import type { TSchema } from '@sinclair/typebox';
import { join } from 'node:path';
import { canonicalJson, parseReport, reportBytes } from '../../shared/wire/report.js';
import { FinishRequest, FinishResponse, Report, StartAnswer, StartRequest } from '../../shared/wire/schemas.js';
import { checkValue } from '../../shared/wire/validate.js';
import { startSession } from '../../verifier/attest/challenge.js';
import { checkEvidence } from '../../verifier/attest/evidence.js';
import { SessionStore } from '../../verifier/attest/session-store.js';
import { OracleViolation, refusesTypedSync, typedOnly, type Target } from '../engine/target.js';
import { jsonOf } from './testdata.js';

const CORPUS = new URL('../corpus/wire/', import.meta.url).pathname;
const SCHEMAS: Record<string, TSchema> = { StartRequest, StartAnswer, FinishRequest, FinishResponse, Report };

/** A session made from the recorded start, for finish bodies to be checked against (their secrets cannot match). */
const recorded = jsonOf<{ body: StartRequest }>(join(CORPUS, 'start-request.json')).body;
const session = startSession(new SessionStore(), recorded, '127.0.0.1').session;

/**
 * A protocol body, `{schema, body}`: checked against its wire schema as the agent and the verifier
 * check it, and what passes goes where the verifier takes it: a start request to `startSession`
 * (EK and AK checks, MakeCredential), a finish to the evidence checks, a report through its
 * canonical bytes and back.
 */
const target: Target = {
  name: 'wire',
  kind: 'json',
  seedSources: ["fuzz/corpus/wire/*.json: one attestation recorded with fleet's own swtpm rig (test/swtpm/rig.ts)"],
  seeds: () => [],
  maxLen: 256 * 1024,
  sources: ['shared/wire/', 'verifier/attest/', 'shared/tpm/', 'shared/ek/'],
  oracle:
    'a value or a ParseError from checkValue/parseReport; a valid start or finish is answered or refused with a Refusal (a FleetError); a valid report survives its canonical bytes',
  run(input) {
    let msg: { schema?: unknown; body?: unknown };
    try {
      msg = JSON.parse(Buffer.from(input).toString('utf8')) as typeof msg;
    } catch {
      return; // fastify answers 400 before any schema sees it
    }
    const schema = typeof msg?.schema === 'string' ? SCHEMAS[msg.schema] : undefined;
    if (!schema) return;
    let body: unknown;
    try {
      body = checkValue(schema, msg.body, 'bad-request', msg.schema as string);
    } catch (err) {
      typedOnly(err);
      return;
    }
    if (schema === StartRequest) refusesTypedSync(() => startSession(new SessionStore(), body as StartRequest, '127.0.0.1'));
    if (schema === FinishRequest) refusesTypedSync(() => checkEvidence(session, body as FinishRequest));
    if (schema === Report) {
      const back = parseReport(reportBytes(body as Report));
      if (canonicalJson(back) !== canonicalJson(body)) throw new OracleViolation('a valid report does not survive its canonical bytes');
    }
  },
};

export default target;

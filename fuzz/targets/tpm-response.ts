import { join } from 'node:path';
import { FleetError } from '../../shared/errors.js';
import { parseQuoteAttest } from '../../shared/tpm/attest.js';
import { Tpm } from '../../shared/tpm/client.js';
import { getHandles, getPcrBanks, getProperty, getRandom } from '../../shared/tpm/commands/capability.js';
import { activateCredential } from '../../shared/tpm/commands/credential.js';
import { nvReadAll, nvReadPublic } from '../../shared/tpm/commands/nv.js';
import { create, createPrimary, load, readPublicArea } from '../../shared/tpm/commands/object.js';
import { pcrRead } from '../../shared/tpm/commands/pcr.js';
import { quote } from '../../shared/tpm/commands/quote.js';
import { startEkPolicySession } from '../../shared/tpm/commands/session.js';
import { TPM_ALG, TPM_GENERATED_VALUE, TPM_PT, TPM_RH, TPM_ST } from '../../shared/tpm/constants.js';
import { objectName, parsePublic, publicKeyObject, spkiDer } from '../../shared/tpm/public.js';
import { parseSignature, verifySignature } from '../../shared/tpm/signature.js';
import { akTemplate, ekTemplateRsa } from '../../shared/tpm/templates.js';
import { refusesTyped, type Target } from '../engine/target.js';
import { jsonOf, VECTORS } from './testdata.js';
import { be } from './tokens.js';

type Call = (tpm: Tpm, payload: Uint8Array) => Promise<unknown>;

/** The fleet call a recorded response answered, by command name; then the structure parsers. */
const CALLS: Array<[name: string, call: Call]> = [
  ['CreatePrimary', (t) => createPrimary(t, TPM_RH.ENDORSEMENT, ekTemplateRsa())],
  ['Create', (t) => create(t, 0x80000000, { kind: 'password' }, akTemplate('ecc'))],
  ['Load', (t) => load(t, 0x80000000, { kind: 'password' }, new Uint8Array(4), new Uint8Array(4), akTemplate('ecc'))],
  ['ReadPublic', (t) => readPublicArea(t, 0x81010001)],
  ['NV_ReadPublic', (t) => nvReadPublic(t, 0x01c00002)],
  ['NV_Read', (t) => nvReadAll(t, 0x01c00002, 768)],
  ['StartAuthSession', (t) => startEkPolicySession(t)],
  ['ActivateCredential', (t) => activateCredential(t, 0x80000001, 0x80000000, { kind: 'password' }, new Uint8Array(8), new Uint8Array(8))],
  ['Quote', (t) => quote(t, 0x80000001, new Uint8Array(32), [{ hashAlg: TPM_ALG.SHA256, pcrs: [0, 1] }])],
  [
    'PCR_Read',
    (t) =>
      pcrRead(
        t,
        TPM_ALG.SHA256,
        Array.from({ length: 24 }, (_, i) => i),
      ),
  ],
  ['GetCapability', (t) => getHandles(t, 0x81000000)],
  ['GetCapability', (t) => getPcrBanks(t)],
  ['GetCapability', (t) => getProperty(t, TPM_PT.NV_BUFFER_MAX)],
  ['GetRandom', (t) => getRandom(t, 48)],
  [
    'TPMT_PUBLIC',
    async (_t, p) => {
      const pub = parsePublic(p);
      objectName(p);
      spkiDer(pub);
    },
  ],
  ['TPMS_ATTEST', async (_t, p) => parseQuoteAttest(p)],
  ['TPMT_SIGNATURE', async (_t, p) => verifyWithAk(p)],
];

const FIX_SIZES = 0x80;

/**
 * An input: one byte choosing the call (its top bit: make each response's size field honest,
 * so half the inputs get past the header), then the TPM's responses, each a u16 length and the
 * bytes; the last takes whatever is left.
 */
function responsesOf(input: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let at = 1;
  while (at < input.length) {
    const n = at + 2 <= input.length ? (input[at]! << 8) | input[at + 1]! : 0;
    const start = Math.min(at + 2, input.length);
    const r = input.slice(start, Math.min(start + n, input.length));
    if (input[0]! & FIX_SIZES && r.length >= 6) new DataView(r.buffer).setUint32(2, r.length);
    out.push(r);
    at = start + n;
  }
  return out;
}

function frame(call: number, responses: Uint8Array[]): Uint8Array {
  const parts: Uint8Array[] = [Uint8Array.of(call)];
  for (const r of responses) parts.push(Uint8Array.of(r.length >> 8, r.length & 0xff), r);
  return Buffer.concat(parts);
}

/** A TPM that answers each command with the next response, then goes away (a typed transport error). */
function answering(responses: Uint8Array[]): Tpm {
  let i = 0;
  return new Tpm(
    {
      transmit: async () => {
        const r = responses[i++];
        if (!r) throw new FleetError('tpm-unavailable', 'the fuzzed TPM has no more responses');
        return r;
      },
      close: async () => undefined,
    },
    // No resend: its timer would slow every retryable response code down to a millisecond.
    { retries: 0, retryDelayMs: 0 },
  );
}

const session = jsonOf<{ exchanges: Array<{ name: string; response: string }> }>(join(VECTORS, 'swtpm-session.json')).exchanges.map((e) => ({
  name: e.name,
  bytes: new Uint8Array(Buffer.from(e.response, 'hex')),
}));

/** The recorded AK (Create's answer), to check fuzzed signatures against a real key. */
const ak = await (async () => {
  const created = await create(answering([session.find((e) => e.name === 'Create')!.bytes]), 0x80000000, { kind: 'password' }, akTemplate('ecc'));
  return { pub: created.pub, key: publicKeyObject(created.pub) };
})();

function verifyWithAk(p: Uint8Array): void {
  verifySignature(ak.pub, ak.key, p, parseSignature(p));
}

async function seeds(): Promise<Uint8Array[]> {
  const index = (name: string) => CALLS.findIndex(([n]) => n === name);
  const out: Uint8Array[] = [];
  session.forEach((e, i) => {
    for (const [k, [name]] of CALLS.entries()) if (name === e.name) out.push(frame(k, [e.bytes]));
    // Calls of two commands get both answers, as recorded.
    const next = session[i + 1];
    if (next && e.name === 'NV_ReadPublic' && next.name === 'NV_Read') out.push(frame(index('NV_Read'), [e.bytes, next.bytes]));
    if (next && e.name === 'StartAuthSession') out.push(frame(index('StartAuthSession'), [e.bytes, next.bytes]));
  });
  out.push(
    frame(
      index('PCR_Read'),
      session.filter((e) => e.name === 'PCR_Read').map((e) => e.bytes),
    ),
  );
  const primary = await createPrimary(answering([session.find((e) => e.name === 'CreatePrimary')!.bytes]), TPM_RH.ENDORSEMENT, ekTemplateRsa());
  const q = await quote(answering([session.filter((e) => e.name === 'Quote').at(-1)!.bytes]), 0x80000001, new Uint8Array(32), []);
  out.push(frame(index('TPMT_PUBLIC'), [primary.area]), frame(index('TPMS_ATTEST'), [q.attest]), frame(index('TPMT_SIGNATURE'), [q.signature]));
  return out;
}

const SEEDS = await seeds();

/** One TPM conversation: fleet's call gets the fuzzed responses; or a structure parser gets the bytes. */
const target: Target = {
  name: 'tpm-response',
  kind: 'bytes',
  seedSources: ["test/vectors/swtpm-session.json (fleet's own recording of swtpm 0.7.1)"],
  seeds: () => SEEDS,
  dictionary: [
    ...be(2, TPM_ST.NO_SESSIONS, TPM_ST.SESSIONS, TPM_ST.ATTEST_QUOTE),
    ...be(2, TPM_ALG.SHA256, TPM_ALG.ECC, TPM_ALG.RSA, TPM_ALG.ECDSA, TPM_ALG.RSASSA, TPM_ALG.NULL),
    // TPM_RC_RETRY, and TPM_RC_HANDLE naming handle 1.
    ...be(4, TPM_GENERATED_VALUE, 0x922, 0x18b),
    // A TPMS_PCR_SELECTION's three bytes selecting PCRs 0 to 23.
    Uint8Array.of(0x03, 0xff, 0xff, 0xff),
  ],
  maxLen: 16 * 1024,
  sources: ['shared/tpm/', 'shared/bytes/'],
  oracle: 'a value, or a FleetError (ParseError tpm-malformed/quote-malformed, TpmError, tpm-bad-key, tpm-unsupported)',
  run(input) {
    if (input.length === 0) return;
    const call = CALLS[(input[0]! & 0x7f) % CALLS.length]![1];
    const responses = responsesOf(input);
    return refusesTyped(() => call(answering(responses), responses[0] ?? new Uint8Array(0)));
  },
};

export default target;

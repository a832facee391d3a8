import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FleetError } from '../../shared/errors.js';
import { parseQuoteAttest } from '../../shared/tpm/attest.js';
import { Tpm } from '../../shared/tpm/client.js';
import { activateCredential } from '../../shared/tpm/commands/credential.js';
import { getHandles, getPcrBanks, getRandom } from '../../shared/tpm/commands/capability.js';
import { nvReadAll, nvReadPublic } from '../../shared/tpm/commands/nv.js';
import { create, createPrimary, load, readPublicArea } from '../../shared/tpm/commands/object.js';
import { pcrRead } from '../../shared/tpm/commands/pcr.js';
import { quote } from '../../shared/tpm/commands/quote.js';
import { startEkPolicySession } from '../../shared/tpm/commands/session.js';
import { TPM_ALG, TPM_RH } from '../../shared/tpm/constants.js';
import { parsePublic } from '../../shared/tpm/public.js';
import { parseSignature } from '../../shared/tpm/signature.js';
import { akTemplate, ekTemplateRsa } from '../../shared/tpm/templates.js';

const session = JSON.parse(readFileSync(new URL('../vectors/swtpm-session.json', import.meta.url), 'utf8')) as {
  exchanges: Array<{ name: string; response: string }>;
};
const responses = session.exchanges.map((e) => ({ name: e.name, bytes: new Uint8Array(Buffer.from(e.response, 'hex')) }));

/** Every TPM call fleet makes, run against a TPM that answers `answer` to everything. */
const CALLS: Array<(tpm: Tpm) => Promise<unknown>> = [
  (t) => createPrimary(t, TPM_RH.ENDORSEMENT, ekTemplateRsa()),
  (t) => create(t, 0x80000000, { kind: 'password' }, akTemplate('ecc')),
  (t) => load(t, 0x80000000, { kind: 'password' }, new Uint8Array(4), new Uint8Array(4), akTemplate('ecc')),
  (t) => readPublicArea(t, 0x81010001),
  (t) => nvReadPublic(t, 0x01c00002),
  (t) => nvReadAll(t, 0x01c00002, 768),
  (t) => startEkPolicySession(t),
  (t) => activateCredential(t, 0x80000001, 0x80000000, { kind: 'password' }, new Uint8Array(8), new Uint8Array(8)),
  (t) => quote(t, 0x80000001, new Uint8Array(32), [{ hashAlg: TPM_ALG.SHA256, pcrs: [0, 1] }]),
  (t) => pcrRead(t, TPM_ALG.SHA256, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
  (t) => getHandles(t, 0x81000000),
  (t) => getPcrBanks(t),
  (t) => getRandom(t, 16),
];

function answering(answer: Uint8Array): Tpm {
  return new Tpm({ transmit: async () => answer, close: async () => undefined }, { retries: 1, retryDelayMs: 0 });
}

/** A parser's only allowed failure is a typed FleetError (ParseError, TpmError, ...). */
async function typedOrOk(p: Promise<unknown>): Promise<void> {
  try {
    await p;
  } catch (err) {
    if (!(err instanceof FleetError)) throw new Error(`untyped ${(err as Error)?.constructor?.name}: ${(err as Error)?.message}`);
  }
}

/** Mutations of a real response: bit flips, truncation, extension, and lying size fields. */
const mutated = fc
  .record({
    base: fc.constantFrom(...responses.map((r) => r.bytes)),
    flips: fc.array(fc.record({ at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }), { maxLength: 6 }),
    cut: fc.option(fc.nat(), { nil: undefined }),
    extra: fc.uint8Array({ maxLength: 16 }),
    fixSize: fc.boolean(),
  })
  .map(({ base, flips, cut, extra, fixSize }) => {
    const b = Buffer.concat([base.subarray(0, cut === undefined ? base.length : cut % (base.length + 1)), extra]);
    for (const f of flips) if (b.length) b[f.at % b.length]! ^= 1 << f.bit;
    // Keep the header's size honest half the time, so the fuzz reaches the parameter parsers.
    if (fixSize && b.length >= 10) b.writeUInt32BE(b.length, 2);
    return new Uint8Array(b);
  });

describe('TPM response parsers under fuzz', () => {
  it('random bytes to every command: a typed error or a value, never a crash', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 600 }), fc.integer({ min: 0, max: CALLS.length - 1 }), async (bytes, i) => {
        await typedOrOk(CALLS[i]!(answering(bytes)));
      }),
      { numRuns: 1500 },
    );
  });

  it('mutated real responses to every command: a typed error or a value, never a crash', async () => {
    await fc.assert(
      fc.asyncProperty(mutated, fc.integer({ min: 0, max: CALLS.length - 1 }), async (bytes, i) => {
        await typedOrOk(CALLS[i]!(answering(bytes)));
      }),
      { numRuns: 4000 },
    );
  });

  it('structure parsers on random and mutated bytes', () => {
    const quoteResponse = responses.filter((r) => r.name === 'Quote').at(-1)!.bytes;
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 400 }), mutated, fc.constant(quoteResponse.subarray(16))), (bytes) => {
        for (const parse of [parsePublic, parseQuoteAttest, parseSignature]) {
          try {
            parse(bytes);
          } catch (err) {
            expect(err).toBeInstanceOf(FleetError);
          }
        }
      }),
      { numRuns: 3000 },
    );
  });
});

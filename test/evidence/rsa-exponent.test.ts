import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { marshalPublic, type RsaPublic } from '../../shared/tpm/public.js';
import { akTemplate, ekTemplateRsa } from '../../shared/tpm/templates.js';
import type { StartRequest } from '../../shared/wire/schemas.js';
import { checkAk, checkEks } from '../../verifier/attest/keys.js';

/**
 * An RSA EK or AK whose exponent no TPM makes (1, which signs and encrypts nothing; an even one,
 * which is no RSA key; 0xffffffff) is refused at start, before anything encrypts to it or reads a
 * quote it signed. TPMs make 65537, written 0 in the public area.
 */
const n = (): Uint8Array => {
  const jwk = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' });
  return new Uint8Array(Buffer.from(jwk.n!, 'base64url'));
};
const MODULUS = n();
const b64 = (p: RsaPublic) => Buffer.from(marshalPublic(p)).toString('base64');
const ek = (exponent: number): RsaPublic => ({ ...ekTemplateRsa(), exponent, unique: MODULUS });
const ak = (exponent: number): RsaPublic => ({ ...(akTemplate('rsa') as RsaPublic), exponent, unique: MODULUS });
const request = (pub: RsaPublic): StartRequest => ({
  serial: 'SN1',
  mac: '52:54:00:12:34:56',
  eks: [{ kind: 'rsa2048', public: b64(pub), certificate: null }],
  ak: '',
});

describe("an RSA key's exponent at start", () => {
  it.each([0, 65537, 3])('%d is let on', (e) => {
    expect(checkEks(request(ek(e)))[0]!.kind).toBe('rsa2048');
    expect(checkAk(b64(ak(e))).pub.type).toBe('rsa');
  });

  it.each([1, 2, 65536, 0xffffffff])('%d is refused, for the EK (ek-invalid) and the AK (ak-invalid), saying why', (e) => {
    expect(() => checkEks(request(ek(e)))).toThrow(expect.objectContaining({ code: 'ek-invalid', message: expect.stringMatching(/exponent/) }));
    expect(() => checkAk(b64(ak(e)))).toThrow(expect.objectContaining({ code: 'ak-invalid', message: expect.stringMatching(/exponent/) }));
  });
});

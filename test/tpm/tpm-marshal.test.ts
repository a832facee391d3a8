import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ByteReader } from '../../shared/bytes/reader.js';
import { ekHash } from '../../shared/ek/hash.js';
import { ekHashOfCertificate } from '../../shared/ek-cert/ek-certificate.js';
import { ParseError } from '../../shared/errors.js';
import { Tpm } from '../../shared/tpm/client.js';
import { decodeResponse, encodeCommand } from '../../shared/tpm/command.js';
import { createPrimary } from '../../shared/tpm/commands/object.js';
import { nvReadAll } from '../../shared/tpm/commands/nv.js';
import { TPM_CC, TPM_RH } from '../../shared/tpm/constants.js';
import { marshalPublic, objectName, parsePublic } from '../../shared/tpm/public.js';
import { decodeRc, describeRc, TpmError } from '../../shared/tpm/rc.js';
import { akTemplate, ekTemplateEcc, ekTemplateRsa } from '../../shared/tpm/templates.js';
import type { Transport } from '../../shared/tpm/transport.js';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const POLICY = '837197674484b3f81a90cc8d46a5d724fd52d76e06520b64f2a1da1b331469aa';

interface Exchange {
  name: string;
  command: string;
  response: string;
}
const session = JSON.parse(readFileSync(new URL('../vectors/swtpm-session.json', import.meta.url), 'utf8')) as { exchanges: Exchange[] };

/** A transport that answers from the recorded session, checking each command is the recorded one. */
function replaying(exchanges: Exchange[]): Transport {
  let i = 0;
  return {
    async transmit(cmd) {
      const e = exchanges[i++];
      if (!e) throw new Error('no more recorded exchanges');
      expect(Buffer.from(cmd).toString('hex')).toBe(e.command);
      return new Uint8Array(hex(e.response));
    },
    close: async () => undefined,
  };
}

describe('TCG EK templates (EK Credential Profile 2.0, B.3.3 and B.3.4)', () => {
  it("L-1 RSA 2048 marshals to the profile's bytes", () => {
    const expected = hex(`0001 000b 000300b2 0020 ${POLICY} 0006 0080 0043 0010 0800 00000000 0100`);
    const bytes = marshalPublic(ekTemplateRsa());
    expect(bytes.length).toBe(expected.length + 256);
    expect(Buffer.from(bytes.subarray(0, expected.length))).toEqual(expected);
    expect(bytes.subarray(expected.length).every((b) => b === 0)).toBe(true);
  });

  it("L-2 ECC NIST P-256 marshals to the profile's bytes", () => {
    const zeros = '00'.repeat(32);
    const expected = hex(`0023 000b 000300b2 0020 ${POLICY} 0006 0080 0043 0010 0003 0010 0020 ${zeros} 0020 ${zeros}`);
    expect(Buffer.from(marshalPublic(ekTemplateEcc()))).toEqual(expected);
  });

  it('the ECC AK is a restricted ECDSA-SHA256 signing key', () => {
    // type ECC, nameAlg SHA256, fixedTPM|fixedParent|sensitiveDataOrigin|userWithAuth|noDA|restricted|sign,
    // no policy, no symmetric, ECDSA with SHA256, P-256, no KDF, empty x and y
    expect(Buffer.from(marshalPublic(akTemplate('ecc')))).toEqual(hex('0023 000b 00050472 0000 0010 0018 000b 0003 0010 0000 0000'));
  });

  it('parse(marshal(t)) is t for every template', () => {
    for (const t of [ekTemplateRsa(), ekTemplateEcc(), akTemplate('ecc'), akTemplate('rsa')]) {
      expect(marshalPublic(parsePublic(marshalPublic(t)))).toEqual(marshalPublic(t));
    }
  });
});

describe('a recorded swtpm session', () => {
  const first = session.exchanges.findIndex((e) => e.name === 'CreatePrimary');

  it('our CreatePrimary command for the RSA EK is byte for byte the recorded one, and its answer parses', async () => {
    const e = session.exchanges[first]!;
    const tpm = new Tpm(replaying([e]));
    const key = await createPrimary(tpm, TPM_RH.ENDORSEMENT, ekTemplateRsa());
    expect(key.handle).toBe(0x80000000);
    expect(key.pub.type).toBe('rsa');
    // The TPM's Name is nameAlg ‖ SHA-256(public area), computed independently here.
    expect(Buffer.from(key.name)).toEqual(Buffer.concat([hex('000b'), createHash('sha256').update(key.area).digest()]));
    expect(objectName(key.area)).toEqual(key.name);
  });

  it('the EK certificate read from NV certifies exactly the key CreatePrimary returned', async () => {
    // NV_ReadPublic of 0x01c00002, then one NV_Read of swtpm's NV_BUFFER_MAX (1024)
    const nv = session.exchanges.slice(first - 3, first - 1);
    expect(nv.map((e) => e.name)).toEqual(['NV_ReadPublic', 'NV_Read']);
    const tpm = new Tpm(replaying(nv));
    const cert = await nvReadAll(tpm, 0x01c00002, 1024);
    expect(cert).not.toBeNull();
    const key = await createPrimary(new Tpm(replaying([session.exchanges[first]!])), TPM_RH.ENDORSEMENT, ekTemplateRsa());
    expect(ekHashOfCertificate(cert!)).toBe(ekHash(key.pub));
  });

  it('a response whose size field lies is a typed error', () => {
    const e = session.exchanges[first]!;
    const res = hex(e.response);
    res.writeUInt32BE(res.length + 1, 2);
    expect(() => decodeResponse({ name: 'CreatePrimary', cc: TPM_CC.CreatePrimary, auths: [{ kind: 'password' }], responseHandles: 1 }, res)).toThrow(
      ParseError,
    );
  });

  it('a truncated response is a typed error naming the field', () => {
    const e = session.exchanges[first]!;
    const res = hex(e.response).subarray(0, 40);
    res.writeUInt32BE(40, 2);
    const err = (() => {
      try {
        decodeResponse({ name: 'CreatePrimary', cc: TPM_CC.CreatePrimary, auths: [{ kind: 'password' }], responseHandles: 1 }, res);
      } catch (x) {
        return x;
      }
    })();
    expect(err).toBeInstanceOf(ParseError);
    expect((err as ParseError).code).toBe('tpm-malformed');
  });
});

describe('command framing', () => {
  it('a sessionless command has tag 0x8001 and its own size', () => {
    expect(Buffer.from(encodeCommand({ name: 'FlushContext', cc: TPM_CC.FlushContext, params: hex('80000001') }))).toEqual(
      hex('8001 0000000e 00000165 80000001'),
    );
  });
  it('a password session is TPM_RS_PW with an empty nonce, no attributes and an empty HMAC', () => {
    expect(Buffer.from(encodeCommand({ name: 'PCR_Extend', cc: 0x182, handles: [0], auths: [{ kind: 'password' }] }))).toEqual(
      hex('8002 0000001b 00000182 00000000 00000009 40000009 0000 00 0000'),
    );
  });
});

describe('response codes', () => {
  it.each([
    [0x1df, 'INTEGRITY', { parameter: 1 }],
    [0x0a6 | 0x040 | 0x200, 'CURVE', { parameter: 2 }],
    [0x18b, 'HANDLE', { handle: 1 }],
    [0x98e, 'AUTH_FAIL', { session: 1 }],
    [0x922, 'RETRY', { warning: true }],
    [0x902, 'OBJECT_MEMORY', { warning: true }],
    [0x101, 'FAILURE', { format: 'zero' }],
    [0x01e, 'BAD_TAG', { format: 'tpm1.2' }],
  ])('response code %i decodes to %s', (rc, name, extra) => {
    expect(decodeRc(rc)).toMatchObject({ name, ...extra });
  });

  it('the message says which parameter and what it means', () => {
    expect(describeRc(0x1df)).toBe('TPM_RC_INTEGRITY on parameter 1 (0x1df): an integrity check failed (the credential was not made for this key)');
    const err = new TpmError('ActivateCredential', 0x1df);
    expect(err.code).toBe('tpm-rc');
    expect(err.is('INTEGRITY')).toBe(true);
  });

  it('the client resends on RETRY and gives up with a TpmError after its retries', async () => {
    let sent = 0;
    const retry = hex('8001 0000000a 00000922');
    const tpm = new Tpm({ transmit: async () => (sent++, new Uint8Array(retry)), close: async () => undefined }, { retries: 3, retryDelayMs: 1 });
    const err = await tpm.run({ name: 'GetRandom', cc: TPM_CC.GetRandom, params: hex('0008') }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TpmError);
    expect(sent).toBe(4);
  });
});

describe('ByteReader', () => {
  it('refuses a TPM2B whose size runs past the end', () => {
    const r = new ByteReader(hex('0010 0102'), 'tpm-malformed', 'thing');
    expect(() => r.tpm2b('field')).toThrow(/thing: field needs 16 bytes, 2 left/);
  });
});

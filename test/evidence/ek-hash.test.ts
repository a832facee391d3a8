import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EK_HASH_PATTERN, ekHash } from '../../shared/ek/hash.js';
import { ekHashOfCertificate } from '../../shared/ek-cert/ek-certificate.js';
import { parsePublic } from '../../shared/tpm/public.js';

interface Vector {
  tpmtPublic: string;
  certificate: string;
  ekHash: string;
}
const vectors = JSON.parse(readFileSync(new URL('../vectors/ek-hash.json', import.meta.url), 'utf8')) as Record<'rsa2048' | 'eccp256', Vector>;

/** docs/protocol.md's command ("The EK hash"), exactly as an operator runs it on a receiving scan of the EK certificate. */
function opensslEkHash(certDer: Buffer): string {
  const dir = mkdtempSync(join(tmpdir(), 'ekhash-'));
  try {
    writeFileSync(join(dir, 'ek.der'), certDer);
    const out = execFileSync('sh', ['-c', 'openssl x509 -inform DER -in ek.der -noout -pubkey | openssl pkey -pubin -outform DER | sha256sum'], {
      cwd: dir,
      encoding: 'utf8',
    });
    return out.split(' ')[0]!;
  } finally {
    rmSync(dir, { recursive: true });
  }
}

describe.each(['rsa2048', 'eccp256'] as const)('the EK hash (%s test vector)', (kind) => {
  const v = vectors[kind];

  it("of the TPM's public area is the published vector", () => {
    expect(ekHash(parsePublic(Buffer.from(v.tpmtPublic, 'hex')))).toBe(v.ekHash);
    expect(v.ekHash).toMatch(EK_HASH_PATTERN);
  });

  it("is what docs/protocol.md's openssl command prints for the EK certificate", () => {
    expect(opensslEkHash(Buffer.from(v.certificate, 'base64'))).toBe(v.ekHash);
  });

  it('is the same from the certificate, DER or PEM', () => {
    const der = Buffer.from(v.certificate, 'base64');
    const pem = `-----BEGIN CERTIFICATE-----\n${der.toString('base64').replace(/.{64}/g, '$&\n')}\n-----END CERTIFICATE-----\n`;
    expect(ekHashOfCertificate(der)).toBe(v.ekHash);
    expect(ekHashOfCertificate(pem)).toBe(v.ekHash);
  });
});

describe('the EK hash of bad input', () => {
  it('a certificate that does not parse is a typed error', () => {
    expect(() => ekHashOfCertificate(Buffer.from('not a certificate'))).toThrow(expect.objectContaining({ code: 'ek-cert-malformed' }));
  });
  it('an RSA public whose modulus is not its declared size is refused', () => {
    const v = Buffer.from(vectors.rsa2048.tpmtPublic, 'hex');
    const short = Buffer.concat([v.subarray(0, v.length - 258), Buffer.from([0x00, 0x80]), v.subarray(v.length - 128)]);
    expect(() => ekHash(parsePublic(short))).toThrow(expect.objectContaining({ code: 'tpm-bad-key' }));
  });
  it('an ECC point off the curve is refused', () => {
    const v = Buffer.from(vectors.eccp256.tpmtPublic, 'hex');
    v[v.length - 1]! ^= 1;
    expect(() => ekHash(parsePublic(v))).toThrow(expect.objectContaining({ code: 'tpm-bad-key' }));
  });
});

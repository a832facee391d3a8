import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { authenticodeDigest } from '../../shared/pe/authenticode.js';
import { fleetCli } from '../fleet-cli.js';
import { peImage } from './pe-image.js';

const dir = mkdtempSync(join(tmpdir(), 'fleet-pe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const code = Buffer.from('the code section '.repeat(40));
const data = Buffer.from('the data section '.repeat(70));

/** osslsigncode signs the image with a throwaway key and says the digest it calculated. */
function osslsigncodeDigest(image: Buffer): string {
  const key = join(dir, 'k.pem');
  const cert = join(dir, 'c.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=pe test'], {
    stdio: 'ignore',
  });
  writeFileSync(join(dir, 'in.efi'), image);
  execFileSync('osslsigncode', ['sign', '-certs', cert, '-key', key, '-in', join(dir, 'in.efi'), '-out', join(dir, 'signed.efi')], { stdio: 'ignore' });
  // It exits 1 for a signer no one trusts, having said its digests.
  const said = spawnSync('osslsigncode', ['verify', '-in', join(dir, 'signed.efi')], { encoding: 'utf8' }).stdout;
  return /Calculated message digest\s*:\s*([0-9A-Fa-f]{64})/.exec(said)![1]!.toLowerCase();
}

describe("a PE image's Authenticode digest", () => {
  it('is the one osslsigncode calculates, and stays when the image is signed', () => {
    // 32 bytes after the sections: osslsigncode pads to 8 before the signature, and the padding is hashed.
    const image = peImage([code, data], { trailing: Buffer.from('appended after the sections: 32.') });
    const digest = authenticodeDigest(image);
    expect(digest).toBe(osslsigncodeDigest(image));
    expect(authenticodeDigest(readFileSync(join(dir, 'signed.efi')))).toBe(digest);
  });

  it('leaves out the checksum and the certificate table, and nothing else', () => {
    const plain = authenticodeDigest(peImage([code, data]));
    expect(authenticodeDigest(peImage([code, data], { checksum: 0x1234 }))).toBe(plain);
    expect(authenticodeDigest(peImage([code, data], { certificate: Buffer.alloc(64, 7) }))).toBe(plain);
    const changed = Buffer.from(data);
    changed[10] = 0x21;
    expect(authenticodeDigest(peImage([code, changed]))).not.toBe(plain);
    expect(authenticodeDigest(peImage([code, data], { trailing: Buffer.from('x') }))).not.toBe(plain);
  });

  it('refuses what is not a PE image, or runs past its end, with pe-malformed', () => {
    const refusal = (image: Uint8Array) => {
      try {
        authenticodeDigest(image);
        return null;
      } catch (err) {
        return err;
      }
    };
    const image = peImage([code, data]);
    expect(refusal(Buffer.from('not an image at all'))).toMatchObject({ code: 'pe-malformed', message: /no MZ header/ });
    expect(refusal(image.subarray(0, 300))).toMatchObject({ code: 'pe-malformed', message: /past/ });
    const bad = Buffer.from(image);
    bad.writeUInt32LE(0xfff0, 0x3c);
    expect(refusal(bad)).toMatchObject({ code: 'pe-malformed' });
    // Cut anywhere, it is refused, or (cut after the sections) hashed: never another error.
    for (let cut = 0; cut < image.length; cut += 61) {
      const err = refusal(image.subarray(0, cut));
      if (err) expect(err).toMatchObject({ code: 'pe-malformed' });
    }
  });
});

describe('fleet hookos digest', () => {
  it("prints a UKI's digest, and its embedded kernel's", async () => {
    const kernel = peImage([Buffer.from('a kernel '.repeat(50)), Buffer.from('its data')]);
    const uki = peImage([Buffer.from('the stub'), kernel]);
    // Name the second section .linux, as a UKI's kernel section is.
    uki.write('.linux\0\0', 0x44 + 20 + 240 + 40, 'latin1');
    writeFileSync(join(dir, 'hookos.efi'), uki);
    const run = await fleetCli('hookos', 'digest', join(dir, 'hookos.efi'));
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual([
      `${authenticodeDigest(uki)}  ${join(dir, 'hookos.efi')}`,
      `${authenticodeDigest(kernel)}  ${join(dir, 'hookos.efi')} (.linux, the kernel it embeds)`,
    ]);
  });

  it('refuses a file that is not an image, or not there, with its code', async () => {
    writeFileSync(join(dir, 'text.efi'), 'not an image');
    expect((await fleetCli('hookos', 'digest', join(dir, 'text.efi'))).stderr).toMatch(/no MZ header \[pe-malformed\]/);
    expect((await fleetCli('hookos', 'digest', join(dir, 'absent.efi'))).stderr).toMatch(/cannot read .*absent\.efi.* \[pe-unreadable\]/);
  });
});

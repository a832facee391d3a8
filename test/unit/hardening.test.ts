import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeInstallCode, writeInstallCode } from '../../agent/install-code.js';
import { postJson } from '../../agent/attest/verifier-client.js';
import { Tpm } from '../../shared/tpm/client.js';
import { getHandles } from '../../shared/tpm/commands/capability.js';
import { createPrimary } from '../../shared/tpm/commands/object.js';
import { TPM_CC, TPM_RH } from '../../shared/tpm/constants.js';
import { ekTemplateRsa } from '../../shared/tpm/templates.js';
import { StartAnswer } from '../../shared/wire/schemas.js';
import { EmbeddedInventory } from '../../verifier/inventory/embedded.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

const rsp = (hex: string) => new Uint8Array(Buffer.from(hex.replace(/\s/g, ''), 'hex'));

describe('the TPM client does not leak or loop on a bad TPM', () => {
  it('a CreatePrimary answer that does not parse flushes the handle it named', async () => {
    const sent: number[] = [];
    const tpm = new Tpm({
      transmit: async (cmd) => {
        const cc = Buffer.from(cmd).readUInt32BE(6);
        sent.push(cc);
        if (cc === TPM_CC.FlushContext) return rsp('8001 0000000a 00000000');
        // success, handle 0x80000007, parameterSize 4 of junk where the public area should be, a valid session area
        return rsp('8002 0000001b 00000000 80000007 00000004 ffff0000 0000 00 0000');
      },
      close: async () => undefined,
    });
    await expect(createPrimary(tpm, TPM_RH.ENDORSEMENT, ekTemplateRsa())).rejects.toMatchObject({ code: 'tpm-malformed' });
    expect(sent).toEqual([TPM_CC.CreatePrimary, TPM_CC.FlushContext]);
  });

  it('GetCapability that pages backwards is refused, not followed forever', async () => {
    // moreData=1, TPM_CAP_HANDLES, one handle below the one asked for
    const tpm = new Tpm({ transmit: async () => rsp('8001 00000017 00000000 01 00000001 00000001 80ffffff'), close: async () => undefined });
    await expect(getHandles(tpm, 0x81000000)).rejects.toMatchObject({ code: 'tpm-malformed', message: /below the one asked for/ });
  });
});

describe('the agent never sends or leaves the install code where it should not', () => {
  it('refuses plain HTTP to a verifier off this machine', async () => {
    await expect(postJson({ baseUrl: 'http://10.0.0.1:8443' }, '/v1/attest/start', {}, StartAnswer)).rejects.toMatchObject({ code: 'usage', message: /refusing plain HTTP to 10\.0\.0\.1:8443/ });
  });

  it('removes a temp copy of a code a crash left beside the code file', async () => {
    dir = await mkdtemp(join(tmpdir(), 'code-'));
    const path = join(dir, 'install_code');
    await writeInstallCode(path, 'code-1');
    await writeFile(join(dir, '.install_code.abcdef123456.tmp'), 'code-0');
    await writeFile(join(dir, 'other'), 'kept');
    await removeInstallCode(path);
    expect(await readdir(dir)).toEqual(['other']);
  });
});

describe('the embedded inventory', () => {
  async function inventory(maxClaims?: number) {
    dir = await mkdtemp(join(tmpdir(), 'inv-'));
    await writeFile(join(dir, 'nodes.yaml'), 'nodes:\n  - {hostname: n1, serial: S1}\n');
    return EmbeddedInventory.open(join(dir, 'nodes.yaml'), join(dir, 'state'), maxClaims === undefined ? {} : { maxClaims });
  }
  const claim = (serial: string) => ({ serial, at: 't', mac: 'm', peer: 'p', eks: [] });

  it('keeps the newest claims up to its cap, the newest per serial', async () => {
    const inv = await inventory(3);
    for (const s of ['a', 'b', 'c', 'd', 'b']) await inv.recordClaim(claim(s));
    expect(await inv.claim('a')).toBeNull();
    for (const s of ['b', 'c', 'd']) expect(await inv.claim(s)).not.toBeNull();
  });

  it('a write that fails changes nothing, not even in memory', async () => {
    const inv = await inventory();
    const entry = (await inv.lookup('S1'))!;
    await writeFile(join(dir!, 'state'), 'a file where the state directory should be');
    await expect(inv.recordVerdict(entry, 'attested', 't')).rejects.toThrow();
    expect(inv.device('n1')).toBeUndefined();
  });
});

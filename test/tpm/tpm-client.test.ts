import { join } from 'node:path';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nvChunkSize } from '../../agent/tpm/eks.js';
import { Tpm } from '../../shared/tpm/client.js';
import { getHandles, getPcrBanks, getProperty, getRandom } from '../../shared/tpm/commands/capability.js';
import { nvReadAll, nvReadPublic } from '../../shared/tpm/commands/nv.js';
import { readPublicArea } from '../../shared/tpm/commands/object.js';
import { EK_INDEX, TPM_ALG, TPM_HT, TPM_PT } from '../../shared/tpm/constants.js';
import { TpmError } from '../../shared/tpm/rc.js';
import { SocketTransport } from '../../shared/tpm/transport.js';
import { copyTpmState, goldenTpm } from '../swtpm/provision.js';
import { startSwtpm, type RunningSwtpm } from '../swtpm/swtpm.js';

let swtpm: RunningSwtpm;
let tpm: Tpm;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fleet-tpm-client-'));
  swtpm = await startSwtpm((await copyTpmState(await goldenTpm('a', { persistEks: true }), join(dir, 'tpm'))).stateDir);
  tpm = new Tpm(await SocketTransport.connect({ path: swtpm.socketPath }));
});
afterAll(async () => {
  await tpm.close();
  await swtpm.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('the TPM client on swtpm', () => {
  it('reads an EK certificate the same in any chunk size, each read within the asked size', async () => {
    const whole = await nvReadAll(tpm, EK_INDEX.rsa.cert, await nvChunkSize(tpm));
    const small = await nvReadAll(tpm, EK_INDEX.rsa.cert, 100);
    expect(whole!.length).toBeGreaterThan(700);
    expect(Buffer.from(small!)).toEqual(Buffer.from(whole!));
    expect(whole![0]).toBe(0x30); // a DER SEQUENCE
  });

  it('reports NV_BUFFER_MAX, and an absent NV index or persistent handle as absent', async () => {
    expect(await getProperty(tpm, TPM_PT.NV_BUFFER_MAX)).toBe(1024);
    expect(await nvReadPublic(tpm, 0x01c00003)).toBeNull();
    expect(await nvReadAll(tpm, 0x01c00004, 512)).toBeNull();
    const err = await readPublicArea(tpm, 0x81010099).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TpmError);
    expect((err as TpmError).is('HANDLE')).toBe(true);
    expect((err as TpmError).message).toMatch(/^TPM2_ReadPublic failed: TPM_RC_HANDLE on handle 1 \(0x18b\): the handle does not exist$/);
  });

  it('lists the persistent EKs, the SHA-256 bank, and random bytes', async () => {
    expect(await getHandles(tpm, TPM_HT.PERSISTENT << 24)).toEqual(expect.arrayContaining([EK_INDEX.rsa.persistent, EK_INDEX.ecc.persistent]));
    expect(await getPcrBanks(tpm)).toContainEqual({ hashAlg: TPM_ALG.SHA256, pcrs: [...Array(24).keys()] });
    const a = await getRandom(tpm, 48);
    const b = await getRandom(tpm, 48);
    expect(a.length).toBe(48);
    expect(Buffer.from(a)).not.toEqual(Buffer.from(b));
  });
});

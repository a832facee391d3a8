import { createHash } from 'node:crypto';
import {
  EV_EFI_ACTION,
  EV_EFI_BOOT_SERVICES_APPLICATION,
  EV_EFI_PLATFORM_FIRMWARE_BLOB,
  EV_EFI_VARIABLE_DRIVER_CONFIG,
  EV_NO_ACTION,
  EV_S_CRTM_VERSION,
  EV_SEPARATOR,
} from '../../shared/eventlog/types.js';
import type { Tpm } from '../../shared/tpm/client.js';
import { pcrExtend } from '../../shared/tpm/commands/pcr.js';
import { TPM_ALG } from '../../shared/tpm/constants.js';

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest();

/** EFI_GLOBAL_VARIABLE 8be4df61-93ca-11d2-aa0d-00e098032b8c, in its in-memory (mixed-endian) layout. */
const EFI_GLOBAL = Buffer.from('61dfe48bca93d211aa0d00e098032b8c', 'hex');
/** EFI_IMAGE_SECURITY_DATABASE_GUID d719b2cb-3d3a-4596-a3bc-dad00e67656f, for db and dbx. */
const EFI_IMAGE_SECURITY = Buffer.from('cbb219d73a3d9645a3bcdad00e67656f', 'hex');

function u32le(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
}

function variable(guid: Buffer, name: string, data: Buffer): Buffer {
  const n = Buffer.from(name, 'utf16le');
  const len = Buffer.alloc(16);
  len.writeBigUInt64LE(BigInt(name.length), 0);
  len.writeBigUInt64LE(BigInt(data.length), 8);
  return Buffer.concat([guid, len, n, data]);
}

interface Measured {
  pcr: number;
  type: number;
  data: Buffer;
  /** What is hashed into the PCR; the event data itself unless the spec says otherwise. */
  measured?: Buffer;
}

/**
 * A small but real UEFI measured boot, for the demo and benchmarks (no recorded log needed): the
 * CRTM version and firmware in PCR 0, Secure Boot on and its databases in PCR 7, the separators,
 * a boot application in PCR 4, ExitBootServices in PCR 5. `boot` extends it into the TPM's SHA-256
 * PCRs and returns the crypto-agile event log that describes them.
 */
export async function bootSimulatedFirmware(tpm: Tpm, bootApp = 'HookOS UKI'): Promise<Uint8Array> {
  const events: Measured[] = [
    { pcr: 0, type: EV_S_CRTM_VERSION, data: Buffer.from('fleet simulated firmware 1.0\0', 'utf16le') },
    {
      pcr: 0,
      type: EV_EFI_PLATFORM_FIRMWARE_BLOB,
      data: Buffer.concat([Buffer.alloc(8, 0), Buffer.from([0, 0, 0x82, 0, 0, 0, 0, 0])]),
      measured: Buffer.from('firmware volume'),
    },
    { pcr: 7, type: EV_EFI_VARIABLE_DRIVER_CONFIG, data: variable(EFI_GLOBAL, 'SecureBoot', Buffer.from([1])) },
    { pcr: 7, type: EV_EFI_VARIABLE_DRIVER_CONFIG, data: variable(EFI_GLOBAL, 'PK', Buffer.from('platform key')) },
    { pcr: 7, type: EV_EFI_VARIABLE_DRIVER_CONFIG, data: variable(EFI_GLOBAL, 'KEK', Buffer.from('key exchange key')) },
    { pcr: 7, type: EV_EFI_VARIABLE_DRIVER_CONFIG, data: variable(EFI_IMAGE_SECURITY, 'db', Buffer.from('signature database')) },
    { pcr: 7, type: EV_EFI_VARIABLE_DRIVER_CONFIG, data: variable(EFI_IMAGE_SECURITY, 'dbx', Buffer.from('forbidden signatures')) },
    ...[0, 1, 2, 3, 4, 5, 6, 7].map((pcr) => ({ pcr, type: EV_SEPARATOR, data: Buffer.alloc(4) })),
    { pcr: 4, type: EV_EFI_BOOT_SERVICES_APPLICATION, data: Buffer.alloc(32), measured: Buffer.from(bootApp) },
    { pcr: 5, type: EV_EFI_ACTION, data: Buffer.from('Exit Boot Services Invocation') },
    { pcr: 5, type: EV_EFI_ACTION, data: Buffer.from('Exit Boot Services Returned with Success') },
  ];

  // The Spec ID Event03 header: a legacy-format EV_NO_ACTION naming the one bank (SHA-256).
  const specId = Buffer.concat([
    Buffer.from('Spec ID Event03\0', 'latin1'),
    u32le(0), // platformClass
    Buffer.from([0, 2, 0, 2]), // spec version 2.0 errata 0, uintnSize 2 (64-bit)
    u32le(1),
    Buffer.from([TPM_ALG.SHA256, 0, 32, 0]), // algorithmId 0x000b (LE), digestSize 32 (LE)
    Buffer.from([0]), // vendorInfoSize
  ]);
  const parts: Buffer[] = [Buffer.concat([u32le(0), u32le(EV_NO_ACTION), Buffer.alloc(20), u32le(specId.length), specId])];
  for (const e of events) {
    const digest = sha256(e.measured ?? e.data);
    await pcrExtend(tpm, e.pcr, [{ hashAlg: TPM_ALG.SHA256, digest }]);
    parts.push(Buffer.concat([u32le(e.pcr), u32le(e.type), u32le(1), Buffer.from([TPM_ALG.SHA256, 0]), digest, u32le(e.data.length), e.data]));
  }
  return new Uint8Array(Buffer.concat(parts));
}

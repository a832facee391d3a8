/**
 * Constants of the TCG PC Client Platform Firmware Profile event log: event types (section 10.4.1)
 * and the TPM algorithm ids a crypto-agile log names its digests by.
 */

export const EV_PREBOOT_CERT = 0x00000000;
export const EV_POST_CODE = 0x00000001;
export const EV_UNUSED = 0x00000002;
export const EV_NO_ACTION = 0x00000003;
export const EV_SEPARATOR = 0x00000004;
export const EV_ACTION = 0x00000005;
export const EV_EVENT_TAG = 0x00000006;
export const EV_S_CRTM_CONTENTS = 0x00000007;
export const EV_S_CRTM_VERSION = 0x00000008;
export const EV_CPU_MICROCODE = 0x00000009;
export const EV_PLATFORM_CONFIG_FLAGS = 0x0000000a;
export const EV_TABLE_OF_DEVICES = 0x0000000b;
export const EV_COMPACT_HASH = 0x0000000c;
export const EV_IPL = 0x0000000d;
export const EV_IPL_PARTITION_DATA = 0x0000000e;
export const EV_NONHOST_CODE = 0x0000000f;
export const EV_NONHOST_CONFIG = 0x00000010;
export const EV_NONHOST_INFO = 0x00000011;
export const EV_OMIT_BOOT_DEVICE_EVENTS = 0x00000012;

export const EV_EFI_EVENT_BASE = 0x80000000;
export const EV_EFI_VARIABLE_DRIVER_CONFIG = 0x80000001;
export const EV_EFI_VARIABLE_BOOT = 0x80000002;
export const EV_EFI_BOOT_SERVICES_APPLICATION = 0x80000003;
export const EV_EFI_BOOT_SERVICES_DRIVER = 0x80000004;
export const EV_EFI_RUNTIME_SERVICES_DRIVER = 0x80000005;
export const EV_EFI_GPT_EVENT = 0x80000006;
export const EV_EFI_ACTION = 0x80000007;
export const EV_EFI_PLATFORM_FIRMWARE_BLOB = 0x80000008;
export const EV_EFI_HANDOFF_TABLES = 0x80000009;
export const EV_EFI_PLATFORM_FIRMWARE_BLOB2 = 0x8000000a;
export const EV_EFI_HANDOFF_TABLES2 = 0x8000000b;
export const EV_EFI_VARIABLE_BOOT2 = 0x8000000c;
export const EV_EFI_GPT_EVENT2 = 0x8000000d;
export const EV_EFI_HCRTM_EVENT = 0x80000010;
export const EV_EFI_VARIABLE_AUTHORITY = 0x800000e0;
export const EV_EFI_SPDM_FIRMWARE_BLOB = 0x800000e1;
export const EV_EFI_SPDM_FIRMWARE_CONFIG = 0x800000e2;
export const EV_EFI_SPDM_DEVICE_POLICY = 0x800000e3;
export const EV_EFI_SPDM_DEVICE_AUTHORITY = 0x800000e4;

const EVENT_TYPE_NAMES: ReadonlyMap<number, string> = new Map([
  [EV_PREBOOT_CERT, 'EV_PREBOOT_CERT'],
  [EV_POST_CODE, 'EV_POST_CODE'],
  [EV_UNUSED, 'EV_UNUSED'],
  [EV_NO_ACTION, 'EV_NO_ACTION'],
  [EV_SEPARATOR, 'EV_SEPARATOR'],
  [EV_ACTION, 'EV_ACTION'],
  [EV_EVENT_TAG, 'EV_EVENT_TAG'],
  [EV_S_CRTM_CONTENTS, 'EV_S_CRTM_CONTENTS'],
  [EV_S_CRTM_VERSION, 'EV_S_CRTM_VERSION'],
  [EV_CPU_MICROCODE, 'EV_CPU_MICROCODE'],
  [EV_PLATFORM_CONFIG_FLAGS, 'EV_PLATFORM_CONFIG_FLAGS'],
  [EV_TABLE_OF_DEVICES, 'EV_TABLE_OF_DEVICES'],
  [EV_COMPACT_HASH, 'EV_COMPACT_HASH'],
  [EV_IPL, 'EV_IPL'],
  [EV_IPL_PARTITION_DATA, 'EV_IPL_PARTITION_DATA'],
  [EV_NONHOST_CODE, 'EV_NONHOST_CODE'],
  [EV_NONHOST_CONFIG, 'EV_NONHOST_CONFIG'],
  [EV_NONHOST_INFO, 'EV_NONHOST_INFO'],
  [EV_OMIT_BOOT_DEVICE_EVENTS, 'EV_OMIT_BOOT_DEVICE_EVENTS'],
  [EV_EFI_EVENT_BASE, 'EV_EFI_EVENT_BASE'],
  [EV_EFI_VARIABLE_DRIVER_CONFIG, 'EV_EFI_VARIABLE_DRIVER_CONFIG'],
  [EV_EFI_VARIABLE_BOOT, 'EV_EFI_VARIABLE_BOOT'],
  [EV_EFI_BOOT_SERVICES_APPLICATION, 'EV_EFI_BOOT_SERVICES_APPLICATION'],
  [EV_EFI_BOOT_SERVICES_DRIVER, 'EV_EFI_BOOT_SERVICES_DRIVER'],
  [EV_EFI_RUNTIME_SERVICES_DRIVER, 'EV_EFI_RUNTIME_SERVICES_DRIVER'],
  [EV_EFI_GPT_EVENT, 'EV_EFI_GPT_EVENT'],
  [EV_EFI_ACTION, 'EV_EFI_ACTION'],
  [EV_EFI_PLATFORM_FIRMWARE_BLOB, 'EV_EFI_PLATFORM_FIRMWARE_BLOB'],
  [EV_EFI_HANDOFF_TABLES, 'EV_EFI_HANDOFF_TABLES'],
  [EV_EFI_PLATFORM_FIRMWARE_BLOB2, 'EV_EFI_PLATFORM_FIRMWARE_BLOB2'],
  [EV_EFI_HANDOFF_TABLES2, 'EV_EFI_HANDOFF_TABLES2'],
  [EV_EFI_VARIABLE_BOOT2, 'EV_EFI_VARIABLE_BOOT2'],
  [EV_EFI_GPT_EVENT2, 'EV_EFI_GPT_EVENT2'],
  [EV_EFI_HCRTM_EVENT, 'EV_EFI_HCRTM_EVENT'],
  [EV_EFI_VARIABLE_AUTHORITY, 'EV_EFI_VARIABLE_AUTHORITY'],
  [EV_EFI_SPDM_FIRMWARE_BLOB, 'EV_EFI_SPDM_FIRMWARE_BLOB'],
  [EV_EFI_SPDM_FIRMWARE_CONFIG, 'EV_EFI_SPDM_FIRMWARE_CONFIG'],
  [EV_EFI_SPDM_DEVICE_POLICY, 'EV_EFI_SPDM_DEVICE_POLICY'],
  [EV_EFI_SPDM_DEVICE_AUTHORITY, 'EV_EFI_SPDM_DEVICE_AUTHORITY'],
]);

/** `EV_SEPARATOR`, or `EV_UNKNOWN_0x...` for a type the spec does not name. */
export function eventTypeName(type: number): string {
  return EVENT_TYPE_NAMES.get(type) ?? `EV_UNKNOWN_0x${type.toString(16).padStart(8, '0')}`;
}

export const TPM_ALG_SHA1 = 0x0004;
export const TPM_ALG_SHA256 = 0x000b;
export const TPM_ALG_SHA384 = 0x000c;
export const TPM_ALG_SHA512 = 0x000d;
export const TPM_ALG_SM3_256 = 0x0012;
export const TPM_ALG_SHA3_256 = 0x0027;
export const TPM_ALG_SHA3_384 = 0x0028;
export const TPM_ALG_SHA3_512 = 0x0029;

export type BankName = 'sha1' | 'sha256' | 'sha384' | 'sha512' | 'sm3_256' | 'sha3_256' | 'sha3_384' | 'sha3_512';

export interface HashAlgorithm {
  readonly id: number;
  readonly name: BankName;
  readonly size: number;
  /** The name node:crypto knows the hash by. */
  readonly nodeName: string;
}

export const HASH_ALGORITHMS: ReadonlyMap<number, HashAlgorithm> = new Map(
  (
    [
      [TPM_ALG_SHA1, 'sha1', 20, 'sha1'],
      [TPM_ALG_SHA256, 'sha256', 32, 'sha256'],
      [TPM_ALG_SHA384, 'sha384', 48, 'sha384'],
      [TPM_ALG_SHA512, 'sha512', 64, 'sha512'],
      [TPM_ALG_SM3_256, 'sm3_256', 32, 'sm3'],
      [TPM_ALG_SHA3_256, 'sha3_256', 32, 'sha3-256'],
      [TPM_ALG_SHA3_384, 'sha3_384', 48, 'sha3-384'],
      [TPM_ALG_SHA3_512, 'sha3_512', 64, 'sha3-512'],
    ] as const
  ).map(([id, name, size, nodeName]) => [id, { id, name, size, nodeName }]),
);

/** The highest PCR index of a PC Client TPM (24 PCRs). */
export const MAX_PCR = 23;

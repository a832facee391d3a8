/** TPM 2.0 constants (TCG TPM 2.0 Library, Part 2: Structures) for the commands fleet uses. */

export const TPM_ST = {
  NO_SESSIONS: 0x8001,
  SESSIONS: 0x8002,
  ATTEST_QUOTE: 0x8018,
  CREATION: 0x8021,
  VERIFIED: 0x8022,
  AUTH_SECRET: 0x8023,
  HASHCHECK: 0x8024,
  AUTH_SIGNED: 0x8025,
} as const;

export const TPM_CC = {
  EvictControl: 0x120,
  PCR_Extend: 0x182,
  CreatePrimary: 0x131,
  ActivateCredential: 0x147,
  NV_Read: 0x14e,
  PolicySecret: 0x151,
  Create: 0x153,
  Load: 0x157,
  Quote: 0x158,
  FlushContext: 0x165,
  MakeCredential: 0x168,
  NV_ReadPublic: 0x169,
  ReadPublic: 0x173,
  StartAuthSession: 0x176,
  GetCapability: 0x17a,
  GetRandom: 0x17b,
  PCR_Read: 0x17e,
} as const;

export const TPM_ALG = {
  RSA: 0x0001,
  SHA1: 0x0004,
  HMAC: 0x0005,
  AES: 0x0006,
  KEYEDHASH: 0x0008,
  SHA256: 0x000b,
  SHA384: 0x000c,
  SHA512: 0x000d,
  NULL: 0x0010,
  SM3_256: 0x0012,
  RSASSA: 0x0014,
  RSAES: 0x0015,
  RSAPSS: 0x0016,
  OAEP: 0x0017,
  ECDSA: 0x0018,
  ECDH: 0x0019,
  ECDAA: 0x001a,
  SM2: 0x001b,
  ECSCHNORR: 0x001c,
  ECMQV: 0x001d,
  KDF1_SP800_56A: 0x0020,
  KDF2: 0x0021,
  KDF1_SP800_108: 0x0022,
  ECC: 0x0023,
  SYMCIPHER: 0x0025,
  CFB: 0x0043,
} as const;

export const TPM_ECC = {
  NIST_P256: 0x0003,
  NIST_P384: 0x0004,
} as const;

/** Permanent and session handles. */
export const TPM_RH = {
  OWNER: 0x40000001,
  NULL: 0x40000007,
  PW: 0x40000009, // TPM_RS_PW: the password session
  LOCKOUT: 0x4000000a,
  ENDORSEMENT: 0x4000000b,
  PLATFORM: 0x4000000c,
} as const;

/** The handle ranges, by their top byte. */
export const TPM_HT = {
  PCR: 0x00,
  NV_INDEX: 0x01,
  HMAC_SESSION: 0x02,
  POLICY_SESSION: 0x03,
  PERMANENT: 0x40,
  TRANSIENT: 0x80,
  PERSISTENT: 0x81,
} as const;

export const TPM_SE = { HMAC: 0x00, POLICY: 0x01, TRIAL: 0x03 } as const;

export const TPM_CAP = {
  ALGS: 0x0,
  HANDLES: 0x1,
  PCRS: 0x5,
  TPM_PROPERTIES: 0x6,
  ECC_CURVES: 0x8,
} as const;

export const TPM_PT = {
  MANUFACTURER: 0x105,
  FIRMWARE_VERSION_1: 0x10b,
  NV_BUFFER_MAX: 0x12c,
  /** failedTries: authorization failures (and non-orderly shutdowns after a DA-protected use) not yet recovered. */
  LOCKOUT_COUNTER: 0x20e,
} as const;

/** TPMA_OBJECT bits. */
export const TPMA_OBJECT = {
  fixedTPM: 1 << 1,
  stClear: 1 << 2,
  fixedParent: 1 << 4,
  sensitiveDataOrigin: 1 << 5,
  userWithAuth: 1 << 6,
  adminWithPolicy: 1 << 7,
  noDA: 1 << 10,
  encryptedDuplication: 1 << 11,
  restricted: 1 << 16,
  decrypt: 1 << 17,
  sign: 1 << 18,
} as const;

/** TPMA_NV bits that decide how an index is read. */
export const TPMA_NV = {
  PPREAD: 1 << 16,
  OWNERREAD: 1 << 17,
  AUTHREAD: 1 << 18,
  POLICYREAD: 1 << 19,
  NO_DA: 1 << 25,
  WRITTEN: 1 << 29,
} as const;

/** TPMA_SESSION bits. */
export const TPMA_SESSION = { continueSession: 0x01 } as const;

/** TPM_GENERATED_VALUE: the magic that marks a structure the TPM itself signed. */
export const TPM_GENERATED_VALUE = 0xff544347;

/** Well-known NV indices and persistent handles (TCG EK Credential Profile 2.x, TCG Provisioning Guidance). */
export const EK_INDEX = {
  rsa: { cert: 0x01c00002, nonce: 0x01c00003, template: 0x01c00004, persistent: 0x81010001 },
  ecc: { cert: 0x01c0000a, nonce: 0x01c0000b, template: 0x01c0000c, persistent: 0x81010002 },
} as const;

/** Digest algorithms fleet handles, with node:crypto names and sizes. */
export const HASHES: Record<number, { name: string; node: string; size: number }> = {
  [TPM_ALG.SHA1]: { name: 'sha1', node: 'sha1', size: 20 },
  [TPM_ALG.SHA256]: { name: 'sha256', node: 'sha256', size: 32 },
  [TPM_ALG.SHA384]: { name: 'sha384', node: 'sha384', size: 48 },
  [TPM_ALG.SHA512]: { name: 'sha512', node: 'sha512', size: 64 },
};

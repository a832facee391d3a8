import { FleetError } from '../errors.js';

/** TPM_RC names (Part 2, 6.6), keyed by the code with its handle/parameter/session bits cleared. */
const NAMES: Record<number, string> = {
  0x000: 'SUCCESS',
  0x01e: 'BAD_TAG',
  // format zero, version 2.0 (RC_VER1 = 0x100)
  0x100: 'INITIALIZE',
  0x101: 'FAILURE',
  0x103: 'SEQUENCE',
  0x10b: 'PRIVATE',
  0x119: 'HMAC',
  0x120: 'DISABLED',
  0x121: 'EXCLUSIVE',
  0x124: 'AUTH_TYPE',
  0x125: 'AUTH_MISSING',
  0x126: 'POLICY',
  0x127: 'PCR',
  0x128: 'PCR_CHANGED',
  0x12d: 'UPGRADE',
  0x12e: 'TOO_MANY_CONTEXTS',
  0x12f: 'AUTH_UNAVAILABLE',
  0x130: 'REBOOT',
  0x131: 'UNBALANCED',
  0x142: 'COMMAND_SIZE',
  0x143: 'COMMAND_CODE',
  0x144: 'AUTHSIZE',
  0x145: 'AUTH_CONTEXT',
  0x146: 'NV_RANGE',
  0x147: 'NV_SIZE',
  0x148: 'NV_LOCKED',
  0x149: 'NV_AUTHORIZATION',
  0x14a: 'NV_UNINITIALIZED',
  0x14b: 'NV_SPACE',
  0x14c: 'NV_DEFINED',
  0x150: 'BAD_CONTEXT',
  0x151: 'CPHASH',
  0x152: 'PARENT',
  0x153: 'NEEDS_TEST',
  0x154: 'NO_RESULT',
  0x155: 'SENSITIVE',
  // format one (RC_FMT1 = 0x080)
  0x081: 'ASYMMETRIC',
  0x082: 'ATTRIBUTES',
  0x083: 'HASH',
  0x084: 'VALUE',
  0x085: 'HIERARCHY',
  0x087: 'KEY_SIZE',
  0x088: 'MGF',
  0x089: 'MODE',
  0x08a: 'TYPE',
  0x08b: 'HANDLE',
  0x08c: 'KDF',
  0x08d: 'RANGE',
  0x08e: 'AUTH_FAIL',
  0x08f: 'NONCE',
  0x090: 'PP',
  0x092: 'SCHEME',
  0x095: 'SIZE',
  0x096: 'SYMMETRIC',
  0x097: 'TAG',
  0x098: 'SELECTOR',
  0x09a: 'INSUFFICIENT',
  0x09b: 'SIGNATURE',
  0x09c: 'KEY',
  0x09d: 'POLICY_FAIL',
  0x09f: 'INTEGRITY',
  0x0a0: 'TICKET',
  0x0a1: 'RESERVED_BITS',
  0x0a2: 'BAD_AUTH',
  0x0a3: 'EXPIRED',
  0x0a4: 'POLICY_CC',
  0x0a5: 'BINDING',
  0x0a6: 'CURVE',
  0x0a7: 'ECC_POINT',
  // warnings (RC_WARN = 0x900)
  0x901: 'CONTEXT_GAP',
  0x902: 'OBJECT_MEMORY',
  0x903: 'SESSION_MEMORY',
  0x904: 'MEMORY',
  0x905: 'SESSION_HANDLES',
  0x906: 'OBJECT_HANDLES',
  0x907: 'LOCALITY',
  0x908: 'YIELDED',
  0x909: 'CANCELED',
  0x90a: 'TESTING',
  0x920: 'NV_RATE',
  0x921: 'LOCKOUT',
  0x922: 'RETRY',
  0x923: 'NV_UNAVAILABLE',
};

/** Plain-words explanations for the codes an operator is likely to meet. */
const HINTS: Record<string, string> = {
  INITIALIZE: 'the TPM has not been started (TPM2_Startup)',
  FAILURE: 'the TPM is in failure mode; a power cycle may clear it',
  LOCKOUT: 'the TPM is in dictionary-attack lockout',
  AUTH_FAIL: 'the authorization value is wrong',
  BAD_AUTH: 'the authorization value is wrong',
  POLICY_FAIL: "the policy session does not satisfy the object's policy",
  HANDLE: 'the handle does not exist',
  NV_UNINITIALIZED: 'the NV index has not been written',
  OBJECT_MEMORY: 'out of object slots: flush transient objects',
  SESSION_MEMORY: 'out of session slots: flush sessions',
  ASYMMETRIC: 'the TPM does not support this asymmetric algorithm',
  CURVE: 'the TPM does not support this ECC curve',
  KEY_SIZE: 'the TPM does not support this key size',
  INTEGRITY: 'an integrity check failed (the credential was not made for this key)',
  RETRY: 'the TPM asks to resend the command',
  YIELDED: 'the TPM yielded; resend the command',
  TESTING: 'the TPM is self-testing; resend the command',
  COMMAND_CODE: 'the TPM does not implement this command',
};

export interface DecodedRc {
  rc: number;
  /** The base code with handle/parameter/session bits cleared, e.g. 0x084 for VALUE on any parameter. */
  base: number;
  name: string;
  format: 'one' | 'zero' | 'tpm1.2' | 'vendor';
  warning: boolean;
  parameter?: number;
  handle?: number;
  session?: number;
}

export function decodeRc(rc: number): DecodedRc {
  if (rc & 0x080) {
    // Format one: bits 0-5 the error, bit 6 P (parameter), bits 8-11 N.
    const base = 0x080 | (rc & 0x3f);
    const n = (rc >> 8) & 0xf;
    const d: DecodedRc = { rc, base, name: NAMES[base] ?? `FMT1_${hex(base, 3)}`, format: 'one', warning: false };
    if (rc & 0x040) d.parameter = n;
    else if (n & 0x8) d.session = n & 0x7;
    else if (n !== 0) d.handle = n;
    return d;
  }
  if (!(rc & 0x100)) return { rc, base: rc, name: NAMES[rc] ?? `TPM1.2_${hex(rc, 3)}`, format: 'tpm1.2', warning: false };
  if (rc & 0x400) return { rc, base: rc, name: `VENDOR_${hex(rc, 3)}`, format: 'vendor', warning: false };
  const base = rc & 0xd7f; // keep S (bit 11), V (bit 8) and the 7-bit error
  return { rc, base, name: NAMES[base] ?? `RC_${hex(base, 3)}`, format: 'zero', warning: (rc & 0x800) !== 0 };
}

export function describeRc(rc: number): string {
  const d = decodeRc(rc);
  const where =
    d.parameter !== undefined
      ? ` on parameter ${d.parameter}`
      : d.handle !== undefined
        ? ` on handle ${d.handle}`
        : d.session !== undefined
          ? ` on session ${d.session}`
          : '';
  const hint = HINTS[d.name];
  return `TPM_RC_${d.name}${where} (${hex(rc, 3)})${hint ? `: ${hint}` : ''}`;
}

/** Codes after which the same command may simply be sent again. */
export function isRetryable(rc: number): boolean {
  return rc === 0x922 || rc === 0x908 || rc === 0x90a;
}

/** A TPM answered a command with a non-zero response code. */
export class TpmError extends FleetError {
  readonly rc: number;
  readonly decoded: DecodedRc;
  readonly command: string;
  constructor(command: string, rc: number) {
    super('tpm-rc', `TPM2_${command} failed: ${describeRc(rc)}`);
    this.name = 'TpmError';
    this.rc = rc;
    this.decoded = decodeRc(rc);
    this.command = command;
  }
  /** True when this is `name` (e.g. 'HANDLE'), whatever handle or parameter it names. */
  is(name: string): boolean {
    return this.decoded.name === name;
  }
}

function hex(n: number, width: number): string {
  return `0x${n.toString(16).padStart(width, '0')}`;
}

import { Type, type Static } from '@sinclair/typebox';
import { VERDICTS } from './verdicts.js';

/**
 * The attestation protocol's bodies: one definition, used by the verifier's HTTP validation
 * (fastify/ajv), by the agent to check answers, and for the TypeScript types of both.
 * Binary values are standard base64. Sizes are capped so a hostile body cannot make either side
 * allocate without bound.
 */
const B64 = (maxBytes: number) => Type.String({ maxLength: base64Length(maxBytes), pattern: '^[A-Za-z0-9+/]*={0,2}$' });

/** How long `bytes` bytes are in base64. */
export const base64Length = (bytes: number) => Math.ceil(bytes / 3) * 4;

/**
 * The largest event log a finish may carry: ten times the largest recorded firmware log in
 * testdata/ (keylime's binary_bios_measurements, 49,088 bytes; tpm2-tools' largest is 33,824).
 */
export const MAX_EVENT_LOG_BYTES = 512 * 1024;

export const EK_KINDS = ['rsa2048', 'eccp256'] as const;
export const EkKind = Type.Union(EK_KINDS.map((k) => Type.Literal(k)));
export type EkKind = Static<typeof EkKind>;

export const Mac = Type.String({ pattern: '^[0-9a-f]{2}(:[0-9a-f]{2}){5}$' });
export const Serial = Type.String({ minLength: 1, maxLength: 128, pattern: '^[\\x21-\\x7e]+( [\\x21-\\x7e]+)*$' });
export const Hex = (bytes: number) => Type.String({ pattern: `^[0-9a-f]{${bytes * 2}}$` });

export const StartRequest = Type.Object(
  {
    serial: Serial,
    mac: Mac,
    eks: Type.Array(
      Type.Object(
        {
          kind: EkKind,
          /** TPMT_PUBLIC as the TPM reported it. */
          public: B64(1024),
          /** The EK certificate (DER) from NV, when the TPM has one. */
          certificate: Type.Union([B64(8192), Type.Null()]),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 2 },
    ),
    /** The AK's TPMT_PUBLIC. */
    ak: B64(1024),
  },
  { additionalProperties: false },
);
export type StartRequest = Static<typeof StartRequest>;

export const StartResponse = Type.Object(
  {
    session: Type.String({ pattern: '^[A-Za-z0-9_-]{22,64}$' }),
    nonce: B64(64),
    challenges: Type.Array(Type.Object({ kind: EkKind, credentialBlob: B64(1024), secret: B64(1024) }, { additionalProperties: false }), {
      minItems: 1,
      maxItems: 2,
    }),
    expiresInMs: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);
export type StartResponse = Static<typeof StartResponse>;

/**
 * What the agent reports about this boot. It travels as canonical JSON bytes (see report.ts), and
 * the quote signs SHA-256(nonce ‖ those bytes), so the verifier trusts exactly what the TPM signed.
 */
export const Report = Type.Object(
  {
    version: Type.Literal(1),
    session: Type.String({ maxLength: 64 }),
    serial: Serial,
    mac: Mac,
    /** The switch's LLDP frame as captured (hex), or null when none arrived. */
    lldp: Type.Union([Type.String({ maxLength: 3200, pattern: '^([0-9a-f]{2})*$' }), Type.Null()]),
    /** SHA-256 of the event log bytes sent, or null when the machine has no event log. */
    eventLogSha256: Type.Union([Hex(32), Type.Null()]),
    /** The kernel's boot id (/proc/sys/kernel/random/boot_id). */
    bootId: Type.String({ pattern: '^[0-9a-f-]{36}$' }),
    /** The SMBIOS system UUID (lowercase), or null when the firmware gives none; a disk-image node's seed names it. */
    uuid: Type.Optional(Type.Union([Type.String({ pattern: '^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$' }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type Report = Static<typeof Report>;

export const FinishRequest = Type.Object(
  {
    session: Type.String({ maxLength: 64 }),
    secrets: Type.Array(Type.Object({ kind: EkKind, secret: B64(64) }, { additionalProperties: false }), { minItems: 1, maxItems: 2 }),
    /** The canonical report bytes, base64. */
    report: B64(8192),
    quote: Type.Object({ attest: B64(1024), signature: B64(1024) }, { additionalProperties: false }),
    /** PCR values of the quoted bank, by index, hex. */
    pcrs: Type.Record(Type.String({ pattern: '^([0-9]|1[0-9]|2[0-3])$' }), Hex(32)),
    /** The TCG event log (binary_bios_measurements), base64, or null when the machine has none. */
    eventLog: Type.Union([B64(MAX_EVENT_LOG_BYTES), Type.Null()]),
  },
  { additionalProperties: false },
);
export type FinishRequest = Static<typeof FinishRequest>;

export const FinishResponse = Type.Object(
  {
    verdict: Type.Union(VERDICTS.map((v) => Type.Literal(v))),
    /** Plain words for the console and the operator. */
    message: Type.String({ maxLength: 1000 }),
    /** Present only with `attested` while a provision waits for this device. */
    installCode: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' })),
  },
  { additionalProperties: false },
);
export type FinishResponse = Static<typeof FinishResponse>;

/** The body of every 4xx/5xx answer. */
export const ErrorResponse = Type.Object({ error: Type.String(), message: Type.String() });
export type ErrorResponse = Static<typeof ErrorResponse>;

/** `start` answers challenges, or at once a verdict when the claimed keys are refused. */
export const StartAnswer = Type.Union([StartResponse, FinishResponse]);
export type StartAnswer = Static<typeof StartAnswer>;

export const PATHS = { start: '/v1/attest/start', finish: '/v1/attest/finish' } as const;

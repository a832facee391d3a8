import { ParseError } from '../errors.js';
import type { X509 } from './certificate.js';
import { children, readTlv, smallInt, TAG, type Tlv, value } from './der.js';
import { directoryAttribute } from './directory-attributes.js';

const EK_GENERATION_TYPES = ['internal', 'injected', 'internal-revocable', 'injected-revocable'] as const;
const GENERATION_LOCATIONS = ['tpm-manufacturer', 'platform-manufacturer', 'ek-cert-signer'] as const;
const EVALUATION_STATUSES = ['designed-to-meet', 'evaluation-in-progress', 'evaluation-completed'] as const;

/** What the TPM's maker asserts about it (TCG EK Credential Profile, TPMSecurityAssertions). */
export interface SecurityAssertions {
  /** The structure's version: 0 is v1, also when the field is left out (it is DEFAULT v1). */
  version: number;
  fieldUpgradeable: boolean;
  ekGenerationType: (typeof EK_GENERATION_TYPES)[number] | null;
  ekGenerationLocation: (typeof GENERATION_LOCATIONS)[number] | null;
  ekCertificateGenerationLocation: (typeof GENERATION_LOCATIONS)[number] | null;
  commonCriteria: { version: string; assuranceLevel: number; evaluationStatus: (typeof EVALUATION_STATUSES)[number]; plus: boolean } | null;
  fips: { version: string; level: number; plus: boolean } | null;
  iso9000Certified: boolean;
  iso9000Uri: string | null;
}

const TPM_SECURITY_ASSERTIONS = '2.23.133.2.18';

const malformed = (what: string, at?: number) => new ParseError('ek-cert-malformed', `the TPMSecurityAssertions attribute: ${what}`, at);

/**
 * Reads the assertions as makers write them: the profile's context tags [0]..[5], explicit (the
 * STM and Infineon certificates wrap each value) or implicit; and iso9000Certified also untagged,
 * as TPM 1.2 certificates put it after fipsLevel.
 */
export function securityAssertions(cert: X509): SecurityAssertions | null {
  const der = directoryAttribute(cert, TPM_SECURITY_ASSERTIONS);
  if (!der) return null;
  const seq = readTlv(der, 0);
  if (seq.tag !== TAG.sequence || seq.end !== der.length) throw malformed('not a SEQUENCE');
  const out: SecurityAssertions = {
    version: 0,
    fieldUpgradeable: false,
    ekGenerationType: null,
    ekGenerationLocation: null,
    ekCertificateGenerationLocation: null,
    commonCriteria: null,
    fips: null,
    iso9000Certified: false,
    iso9000Uri: null,
  };
  const fields = children(der, seq);
  let i = 0;
  if (fields[i]?.tag === TAG.integer) out.version = smallInt(der, fields[i++]!);
  if (fields[i]?.tag === TAG.boolean) out.fieldUpgradeable = bool(der, fields[i++]!);
  for (; i < fields.length; i++) {
    const f = fields[i]!;
    switch (f.tag & 0xdf) {
      case 0x80:
        out.ekGenerationType = named(der, tagged(der, f, TAG.enumerated), EK_GENERATION_TYPES, 'ekGenerationType');
        break;
      case 0x81:
        out.ekGenerationLocation = named(der, tagged(der, f, TAG.enumerated), GENERATION_LOCATIONS, 'ekGenerationLocation');
        break;
      case 0x82:
        out.ekCertificateGenerationLocation = named(der, tagged(der, f, TAG.enumerated), GENERATION_LOCATIONS, 'ekCertificateGenerationLocation');
        break;
      case 0x83:
        out.commonCriteria = commonCriteria(der, sequenceIn(der, f));
        break;
      case 0x84:
        out.fips = fips(der, sequenceIn(der, f));
        break;
      case 0x85:
        out.iso9000Certified = bool(der, tagged(der, f, TAG.boolean));
        break;
      default:
        if (f.tag === TAG.boolean) out.iso9000Certified = bool(der, f);
        else if (f.tag === TAG.ia5) out.iso9000Uri = text(der, f);
        else throw malformed(`an element with tag 0x${f.tag.toString(16)} is not in the profile`, f.start);
    }
  }
  return out;
}

/** The value under a context tag: the one element inside an explicit tag, or the tag itself read as `inner` when implicit. */
function tagged(der: Uint8Array, t: Tlv, inner: number): Tlv {
  if (!(t.tag & 0x20)) return { ...t, tag: inner };
  const [only, ...rest] = children(der, t);
  if (!only || rest.length > 0 || only.tag !== inner) throw malformed(`the [${t.tag & 0x1f}] field does not hold one value of the profile's type`, t.start);
  return only;
}

/** A SEQUENCE under a context tag: explicit when the tag holds exactly one SEQUENCE, else implicit (the tag's content is the SEQUENCE's). */
function sequenceIn(der: Uint8Array, t: Tlv): Tlv[] {
  if (!(t.tag & 0x20)) throw malformed(`the [${t.tag & 0x1f}] field is not constructed`, t.start);
  const inside = children(der, t);
  return inside.length === 1 && inside[0]!.tag === TAG.sequence ? children(der, inside[0]!) : inside;
}

function commonCriteria(der: Uint8Array, f: Tlv[]): SecurityAssertions['commonCriteria'] {
  const [version, level, status, plus] = f;
  if (version?.tag !== TAG.ia5 || level?.tag !== TAG.enumerated || status?.tag !== TAG.enumerated) {
    throw malformed('ccInfo is not { IA5String, ENUMERATED, ENUMERATED, ... }');
  }
  return {
    version: text(der, version),
    assuranceLevel: smallInt(der, level),
    evaluationStatus: named(der, status, EVALUATION_STATUSES, 'evaluationStatus'),
    plus: plus?.tag === TAG.boolean ? bool(der, plus) : false,
  };
}

function fips(der: Uint8Array, f: Tlv[]): SecurityAssertions['fips'] {
  const [version, level, plus] = f;
  if (version?.tag !== TAG.ia5 || level?.tag !== TAG.enumerated) throw malformed('fipsLevel is not { IA5String, ENUMERATED, ... }');
  return { version: text(der, version), level: smallInt(der, level), plus: plus?.tag === TAG.boolean ? bool(der, plus) : false };
}

function named<T extends readonly string[]>(der: Uint8Array, t: Tlv, names: T, what: string): T[number] {
  const n = smallInt(der, t);
  const name = names[n];
  if (name === undefined) throw malformed(`${what} ${n} is not one the profile defines`, t.start);
  return name;
}

function bool(der: Uint8Array, t: Tlv): boolean {
  const v = value(der, t);
  if (v.length !== 1) throw malformed('a BOOLEAN is not one byte', t.start);
  return v[0] !== 0;
}

function text(der: Uint8Array, t: Tlv): string {
  return Buffer.from(value(der, t)).toString('latin1');
}

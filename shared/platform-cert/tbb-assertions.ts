import type { Tlv } from '../ek-cert/der.js';
import { bool, contextTag, ia5, malformed, named, oid, sequence, small, TAGS } from './fields.js';
import { type UriReference, uriReference } from './uri-reference.js';

const EVALUATION_STATUSES = ['designed-to-meet', 'evaluation-in-progress', 'evaluation-completed'] as const;
const STRENGTHS = ['basic', 'medium', 'high'] as const;
const RTM_TYPES = ['static', 'dynamic', 'non-host', 'hybrid', 'physical', 'virtual'] as const;

/** What the platform's maker asserts of its Trusted Building Block (TCG Platform Certificate Profile, TBBSecurityAssertions). */
export interface TbbAssertions {
  /** 0 is v1, also when the field is left out (DEFAULT v1). */
  version: number;
  commonCriteria: CommonCriteria | null;
  fips: { version: string; level: number; plus: boolean } | null;
  /** The root of trust for measurement. */
  rtmType: (typeof RTM_TYPES)[number] | null;
  iso9000Certified: boolean;
  iso9000Uri: string | null;
}

export interface CommonCriteria {
  version: string;
  assuranceLevel: number;
  evaluationStatus: (typeof EVALUATION_STATUSES)[number];
  plus: boolean;
  strengthOfFunction: (typeof STRENGTHS)[number] | null;
  profileOid: string | null;
  profileUri: UriReference | null;
  targetOid: string | null;
  targetUri: UriReference | null;
}

const WHAT = 'the TBBSecurityAssertions attribute';

/**
 * TBBSecurityAssertions ::= SEQUENCE { version DEFAULT v1, ccInfo [0] IMPLICIT
 * CommonCriteriaMeasures OPTIONAL, fipsLevel [1] IMPLICIT FIPSLevel OPTIONAL, rtmType [2]
 * IMPLICIT MeasurementRootType OPTIONAL, iso9000Certified BOOLEAN DEFAULT FALSE, iso9000Uri
 * IA5String OPTIONAL }.
 */
export function tbbAssertions(der: Uint8Array, t: Tlv): TbbAssertions {
  const fields = sequence(der, t, WHAT);
  const out: TbbAssertions = { version: 0, commonCriteria: null, fips: null, rtmType: null, iso9000Certified: false, iso9000Uri: null };
  let i = 0;
  if (fields[i]?.tag === TAGS.integer) out.version = small(der, fields[i++]!, `${WHAT}'s version`);
  for (let last = -1; i < fields.length && contextTag(fields[i]!) !== null; i++) {
    const f = fields[i]!;
    const tag = contextTag(f)!;
    if (tag <= last || tag > 2) throw malformed(`${WHAT} holds [${tag}] out of the profile's order, or not in it`, f.start);
    last = tag;
    if (tag === 0) out.commonCriteria = commonCriteria(der, f);
    else if (tag === 1) out.fips = fips(der, f);
    else out.rtmType = named(der, f, RTM_TYPES, `${WHAT}'s rtmType`);
  }
  if (fields[i]?.tag === TAGS.boolean) out.iso9000Certified = bool(der, fields[i++]!, `${WHAT}'s iso9000Certified`);
  if (fields[i]?.tag === TAGS.ia5) out.iso9000Uri = ia5(der, fields[i++]!, `${WHAT}'s iso9000Uri`);
  if (i < fields.length) throw malformed(`${WHAT} holds an element the profile does not`, fields[i]!.start);
  return out;
}

/**
 * CommonCriteriaMeasures ::= SEQUENCE { version IA5String, assurancelevel ENUMERATED,
 * evaluationStatus ENUMERATED, plus BOOLEAN DEFAULT FALSE, then IMPLICIT [0] strengthOfFunction,
 * [1] profileOid, [2] profileUri, [3] targetOid, [4] targetUri }.
 */
function commonCriteria(der: Uint8Array, t: Tlv): CommonCriteria {
  const what = `${WHAT}'s ccInfo`;
  const fields = sequence(der, t, what, true);
  const [version, level, status] = fields;
  if (!version || !level || !status) throw malformed(`${what} lacks its version, assurance level or evaluation status`, t.start);
  const out: CommonCriteria = {
    version: ia5(der, version, `${what}'s version`),
    assuranceLevel: small(der, level, `${what}'s assurance level`, TAGS.enumerated),
    evaluationStatus: named(der, status, EVALUATION_STATUSES, `${what}'s evaluation status`, TAGS.enumerated),
    plus: false,
    strengthOfFunction: null,
    profileOid: null,
    profileUri: null,
    targetOid: null,
    targetUri: null,
  };
  let i = 3;
  if (fields[i]?.tag === TAGS.boolean) out.plus = bool(der, fields[i++]!, `${what}'s plus`);
  for (let last = -1; i < fields.length; i++) {
    const f = fields[i]!;
    const tag = contextTag(f);
    if (tag === null || tag <= last || tag > 4) throw malformed(`${what} holds an element out of the profile's order, or not in it`, f.start);
    last = tag;
    if (tag === 0) out.strengthOfFunction = named(der, f, STRENGTHS, `${what}'s strength of function`);
    else if (tag === 1) out.profileOid = oid(der, f, `${what}'s profile OID`, true);
    else if (tag === 2) out.profileUri = uriReference(der, f, `${what}'s profile URI`, true);
    else if (tag === 3) out.targetOid = oid(der, f, `${what}'s target OID`, true);
    else out.targetUri = uriReference(der, f, `${what}'s target URI`, true);
  }
  if (out.assuranceLevel < 1 || out.assuranceLevel > 7) throw malformed(`${what}'s assurance level ${out.assuranceLevel} is not EAL 1 to 7`, level.start);
  return out;
}

/** FIPSLevel ::= SEQUENCE { version IA5String, level SecurityLevel (ENUMERATED 1..4), plus BOOLEAN DEFAULT FALSE }. */
function fips(der: Uint8Array, t: Tlv): TbbAssertions['fips'] {
  const what = `${WHAT}'s fipsLevel`;
  const [version, level, plus, ...rest] = sequence(der, t, what, true);
  if (!version || !level || rest.length > 0) throw malformed(`${what} is not { version, level, plus }`, t.start);
  const out = {
    version: ia5(der, version, `${what}'s version`),
    level: small(der, level, `${what}'s level`, TAGS.enumerated),
    plus: plus ? bool(der, plus, `${what}'s plus`) : false,
  };
  if (out.level < 1 || out.level > 4) throw malformed(`${what}'s level ${out.level} is not 1 to 4`, level.start);
  return out;
}

import type { X509 } from '../ek-cert/certificate.js';
import { type ChainFailureReason, type ChainResult, chainFailureText } from '../ek-cert/chain.js';
import { nameText, sameName } from '../ek-cert/names.js';
import type { PlatformCertificate } from './platform-certificate.js';

/** Which of the certificate's serials equals the machine's. */
export type SerialSource = 'platform' | 'chassis' | 'baseboard';

/** What a platform certificate must show for a machine to be the platform it certifies, each check passed or failed with its typed reason and its words. */
export type PlatformCheck = { message: string } & (
  | { check: 'holder'; passed: true }
  | { check: 'holder'; passed: false; reason: 'delta-certificate' | 'holder-issuer-differs' | 'holder-serial-differs' | 'holder-not-presented' }
  | { check: 'serial'; passed: true; matched: SerialSource }
  | { check: 'serial'; passed: false; reason: 'no-serial' | 'serial-differs' }
  | { check: 'chain'; passed: true; root: string }
  | { check: 'chain'; passed: false; reason: 'chain-not-checked' | ChainFailureReason }
);

/**
 * The values makers write where a serial is unknown (SMBIOS's and paccor's placeholders): they name
 * no machine, so they match none, even one that reports the same placeholder.
 */
const PLACEHOLDERS = new Set(['', 'not specified', 'to be filled by o.e.m.', 'default string', 'none', 'n/a', 'unknown']);

const serialOf = (s: string | null): string | null => {
  const t = s?.trim() ?? '';
  return PLACEHOLDERS.has(t.toLowerCase()) ? null : t;
};

/** How a chain failure names the certificate verified. */
export const PLATFORM_CERTIFICATE = 'the platform certificate';

/** Whether the certificate's holder names this EK certificate: its issuer, in any RDN order, and its serial. */
export const holderNames = (pc: PlatformCertificate, ek: Pick<X509, 'issuer' | 'serial'>): boolean =>
  pc.cert.holder.serial === ek.serial && sameName(pc.cert.holder.issuer, ek.issuer);

/**
 * Checks a platform certificate against the machine that presents it, failing closed: its holder
 * is the EK certificate the TPM presented (issuer, in any RDN order, and serial; `ek` null: none of
 * the TPM's is the one it names; a delta certificate's holder is its base certificate, so it fails
 * here); one of its serials (platform, chassis, baseboard; placeholders count as none) equals the
 * claimed SMBIOS serial exactly, spaces around either aside (HIRS ignores case; fleet's serials
 * are exact); and its signature verifies up to a root of the operator's (verifyChain's result;
 * null when it was not checked).
 */
export function platformChecks(
  pc: PlatformCertificate,
  ek: Pick<X509, 'issuer' | 'serial'> | null,
  claimedSerial: string,
  chain: ChainResult | null,
): PlatformCheck[] {
  return [holderCheck(pc, ek), serialCheck(pc, claimedSerial), chainCheck(chain)];
}

function holderCheck(pc: PlatformCertificate, ek: Pick<X509, 'issuer' | 'serial'> | null): PlatformCheck {
  const holder = pc.cert.holder;
  const named = `${nameText(holder.issuer) || '(an empty name)'}, serial ${holder.serial}`;
  if (pc.kind === 'delta') {
    return {
      check: 'holder',
      passed: false,
      reason: 'delta-certificate',
      message: `a delta platform certificate's holder (${named}) is its base platform certificate, not an EK certificate`,
    };
  }
  if (ek === null) {
    return {
      check: 'holder',
      passed: false,
      reason: 'holder-not-presented',
      message: `its holder is the EK certificate ${named}, which is none of those the TPM presented`,
    };
  }
  if (holder.serial !== ek.serial) {
    return {
      check: 'holder',
      passed: false,
      reason: 'holder-serial-differs',
      message: `its holder is serial ${holder.serial}, the EK certificate's serial is ${ek.serial}`,
    };
  }
  if (!sameName(holder.issuer, ek.issuer)) {
    return {
      check: 'holder',
      passed: false,
      reason: 'holder-issuer-differs',
      message: `its holder's issuer is ${nameText(holder.issuer) || '(an empty name)'}, the EK certificate's issuer is ${nameText(ek.issuer) || '(an empty name)'}`,
    };
  }
  return { check: 'holder', passed: true, message: `its holder is the EK certificate (${named})` };
}

function serialCheck(pc: PlatformCertificate, claimedSerial: string): PlatformCheck {
  const p = pc.platform;
  const serials: Array<[SerialSource, string | null]> = [
    ['platform', serialOf(p.serial)],
    ['chassis', serialOf(p.chassisSerial)],
    ['baseboard', serialOf(p.baseboardSerial)],
  ];
  const known = serials.filter((s): s is [SerialSource, string] => s[1] !== null);
  if (known.length === 0) return { check: 'serial', passed: false, reason: 'no-serial', message: 'it names no platform, chassis or baseboard serial' };
  const claimed = claimedSerial.trim();
  const match = known.find(([, s]) => s === claimed);
  const shown = known.map(([source, s]) => `${source} ${s}`).join(', ');
  if (!match) return { check: 'serial', passed: false, reason: 'serial-differs', message: `the machine's serial ${claimed} is none of its serials (${shown})` };
  return { check: 'serial', passed: true, matched: match[0], message: `its ${match[0]} serial is the machine's, ${claimed}` };
}

function chainCheck(chain: ChainResult | null): PlatformCheck {
  if (chain === null)
    return { check: 'chain', passed: false, reason: 'chain-not-checked', message: 'its signature was not checked: no CA certificates were given' };
  if (!chain.verified) return { check: 'chain', passed: false, reason: chain.failure.reason, message: chainFailureText(chain.failure, PLATFORM_CERTIFICATE) };
  const root = chain.path.at(-1)!.source;
  return { check: 'chain', passed: true, root, message: `its signature verifies up to the root ${root}` };
}

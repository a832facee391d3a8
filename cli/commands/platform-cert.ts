/**
 * `fleet platform-cert [--json] FILE [--roots DIR]`: read a TCG platform certificate (an X.509
 * attribute certificate, DER or PEM) as a platform's maker ships it, show the platform it names
 * (maker, model, version, platform, chassis and baseboard serials), the EK certificate it is bound
 * to (its holder: issuer and serial), whether it is a base or a delta certificate, its components
 * and properties, and, with --roots, whether its signature verifies up to the CA certificates in
 * DIR. It approves nothing: a platform certificate is evidence of what the machine was built as.
 */
import { day, VALIDITY_WORDS } from '../../shared/ek-cert/chain.js';
import { chainJson, chainLines, datesJson } from '../chain-report.js';
import { runFileCommand } from '../file-command.js';
import { type ChainResult, validityAt, verifyChain } from '../../shared/ek-cert/chain.js';
import { nameText } from '../../shared/ek-cert/names.js';
import { signatureAlgorithmName } from '../../shared/ek-cert/signature.js';
import type { IssuerSerial } from '../../shared/platform-cert/attribute-certificate.js';
import { PLATFORM_CERTIFICATE } from '../../shared/platform-cert/checks.js';
import type { Component } from '../../shared/platform-cert/components.js';
import { type PlatformCertificate, parsePlatformCertificate } from '../../shared/platform-cert/platform-certificate.js';
import { readPlatformRoots } from '../../shared/platform-cert/roots.js';
import type { TbbAssertions } from '../../shared/platform-cert/tbb-assertions.js';
import { printable } from '../../shared/text/terminal.js';

export function run(args: string[]): Promise<number> {
  return runFileCommand(
    'platform-cert',
    args,
    async (bytes, options) => {
      const pc = parsePlatformCertificate(bytes);
      const chain = options.roots === undefined ? null : verifyChain(pc.cert, await readPlatformRoots(options.roots));
      const at = new Date();
      return { json: jsonReport(pc, chain, at), text: textReport(pc, chain, at) };
    },
    { roots: 'DIR' },
  );
}

const issuerSerial = (h: IssuerSerial) => ({ issuer: nameText(h.issuer), serial: h.serial });

function componentJson(c: Component): object {
  return { ...c, platformCertificate: c.platformCertificate && issuerSerial(c.platformCertificate) };
}

export function jsonReport(pc: PlatformCertificate, chain: ChainResult | null, at: Date): object {
  const cfg = pc.configuration;
  return {
    encoding: pc.encoding,
    credentialType: pc.credentialType,
    kind: pc.kind,
    credentialTypeOid: pc.credentialTypeOid,
    platform: pc.platform,
    holder: issuerSerial(pc.cert.holder),
    spec: pc.spec,
    credentialSpec: pc.credentialSpec,
    tbb: pc.tbb,
    configuration: cfg && { ...cfg, components: cfg.components.map(componentJson) },
    configurationUri: pc.configurationUri,
    serial: pc.cert.serial,
    issuer: nameText(pc.cert.issuer),
    ...datesJson(pc.cert, at),
    signatureAlgorithm: signatureAlgorithmName(pc.cert),
    authorityKeyId: pc.authorityKeyId,
    caIssuersUri: pc.caIssuersUri,
    at: at.toISOString(),
    chain: chainJson(chain, at, PLATFORM_CERTIFICATE),
  };
}

const none = (s: string | null): string => (s === null ? '(none)' : printable(s));

export function textReport(pc: PlatformCertificate, chain: ChainResult | null, at: Date): string {
  const out = [`Platform certificate: ${pc.encoding.toUpperCase()}, ${pc.credentialType}`];
  const line = (label: string, value: string): void => void out.push(`  ${label.padEnd(18)}${value}`);
  const p = pc.platform;
  const maker = `${none(p.manufacturer)}${p.manufacturerId ? ` (${printable(p.manufacturerId)})` : ''}`;
  line('platform', `${maker}, model ${none(p.model)}, version ${none(p.version)}`);
  line('platform serial', none(p.serial));
  line('chassis serial', none(p.chassisSerial));
  line('baseboard serial', none(p.baseboardSerial));
  const holder = `${printable(nameText(pc.cert.holder.issuer)) || '(an empty name)'}, serial ${pc.cert.holder.serial}`;
  line('holder', pc.kind === 'delta' ? `the base platform certificate ${holder}` : `the EK certificate ${holder}`);
  line('kind', pc.kind === 'delta' ? 'delta: records a change to the platform of its base certificate' : 'base: the platform as built');
  if (pc.spec) line('platform spec', `${pc.spec.major}.${pc.spec.minor}.${pc.spec.revision}, platform class ${pc.spec.platformClass}`);
  if (pc.credentialSpec) line('profile', `${pc.credentialSpec.major}.${pc.credentialSpec.minor}.${pc.credentialSpec.revision}`);
  if (pc.tbb) line('TBB assertions', tbbText(pc.tbb));
  const cfg = pc.configuration;
  line('components', cfg ? String(cfg.components.length) : '(no platformConfiguration)');
  for (const [i, c] of (cfg?.components ?? []).entries()) out.push(`    ${i + 1}. ${componentText(c)}`);
  if (cfg?.componentsUri) out.push(`    more at ${printable(cfg.componentsUri.uri)}`);
  if (cfg?.properties.length)
    line('properties', cfg.properties.map((q) => `${printable(q.name)}=${printable(q.value)}${q.status ? ` (${q.status})` : ''}`).join(', '));
  if (cfg?.propertiesUri) line('properties at', printable(cfg.propertiesUri.uri));
  line('serial', pc.cert.serial);
  line('issuer', printable(nameText(pc.cert.issuer)) || '(empty)');
  line('valid', `${day(pc.cert.notBefore)} to ${day(pc.cert.notAfter)}: ${VALIDITY_WORDS[validityAt(pc.cert, at)]} on ${day(at)}`);
  line('signature', signatureAlgorithmName(pc.cert));
  chainLines(chain, at, PLATFORM_CERTIFICATE, line, out);
  out.push('', 'A verified platform certificate says who built the platform and what with; it approves nothing.', '');
  return out.join('\n');
}

function componentText(c: Component): string {
  const parts = [`${printable(c.manufacturer)} ${printable(c.model)}`];
  if (c.serial !== null) parts.push(`serial ${printable(c.serial)}`);
  if (c.revision !== null) parts.push(`revision ${printable(c.revision)}`);
  if (c.class) {
    const k = c.class;
    parts.push(`class ${k.registryName ?? k.registry} ${k.value}${k.category ? ` (${k.category})` : ''}${k.role ? `: the ${k.role}` : ''}`);
  }
  for (const a of c.addresses) parts.push(`${printable(a.type)} ${printable(a.value)}`);
  if (c.status) parts.push(c.status);
  return parts.join(', ');
}

function tbbText(t: TbbAssertions): string {
  const parts = [`version ${t.version}`];
  if (t.commonCriteria) {
    const cc = t.commonCriteria;
    parts.push(`Common Criteria ${printable(cc.version)} EAL${cc.assuranceLevel}${cc.plus ? '+' : ''}, ${cc.evaluationStatus.replaceAll('-', ' ')}`);
  }
  if (t.fips) parts.push(`FIPS ${printable(t.fips.version)} level ${t.fips.level}${t.fips.plus ? '+' : ''}`);
  if (t.rtmType) parts.push(`RTM ${t.rtmType}`);
  if (t.iso9000Certified) parts.push(`ISO 9000 certified${t.iso9000Uri ? ` (${printable(t.iso9000Uri)})` : ''}`);
  return parts.join('; ');
}

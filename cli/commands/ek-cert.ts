/**
 * `fleet ek-cert [--json] FILE [--roots DIR]`: read an EK certificate as a receiving scan or a
 * TPM's NV index holds it (DER or PEM, with or without the TCG NV header and padding), show its
 * EK hash, the TPM it names and what its maker asserts, and, with --roots, whether it chains to
 * the EK CA certificates in DIR. The EK hash is what admission checks; a verified chain shows who
 * made the TPM and approves nothing.
 */
import { day, VALIDITY_WORDS } from '../../shared/ek-cert/chain.js';
import { chainJson, chainLines, datesJson } from '../chain-report.js';
import { runFileCommand } from '../file-command.js';
import { type ChainResult, validityAt, verifyChain } from '../../shared/ek-cert/chain.js';
import { type EkCertificate, parseEkCertificate } from '../../shared/ek-cert/ek-certificate.js';
import { nameText } from '../../shared/ek-cert/names.js';
import { readCaDirectory } from '../../shared/ek-cert/roots.js';
import type { SecurityAssertions } from '../../shared/ek-cert/security-assertions.js';
import { signatureAlgorithmName } from '../../shared/ek-cert/signature.js';
import { printable } from '../../shared/text/terminal.js';

const EK_CERTIFICATE = 'the EK certificate';

export function run(args: string[]): Promise<number> {
  return runFileCommand(
    'ek-cert',
    args,
    async (bytes, options) => {
      const ek = parseEkCertificate(bytes);
      const chain = options.roots === undefined ? null : verifyChain(ek.cert, await readCaDirectory(options.roots));
      const at = new Date();
      return { json: jsonReport(ek, chain, at), text: textReport(ek, chain, at) };
    },
    { roots: 'DIR' },
  );
}

export function jsonReport(ek: EkCertificate, chain: ChainResult | null, at: Date): object {
  return {
    ekHash: ek.ekHash,
    key: ek.key,
    tpm: ek.tpm,
    spec: ek.spec,
    assertions: ek.assertions,
    serial: ek.cert.serial,
    issuer: nameText(ek.cert.issuer),
    subject: nameText(ek.cert.subject),
    ...datesJson(ek.cert, at),
    signatureAlgorithm: signatureAlgorithmName(ek.cert),
    stored: ek.stored,
    at: at.toISOString(),
    chain: chainJson(chain, at, EK_CERTIFICATE),
  };
}

export function textReport(ek: EkCertificate, chain: ChainResult | null, at: Date): string {
  const out = [`EK certificate: ${storedText(ek)}`];
  const line = (label: string, value: string): void => void out.push(`  ${label.padEnd(18)}${value}`);
  const t = ek.tpm;
  line('EK hash', ek.ekHash);
  line('key', ek.key);
  const maker = t.manufacturer === null ? 'no manufacturer' : `${printable(t.manufacturer)}${t.vendor ? ` (${printable(t.vendor)})` : ''}`;
  line('TPM', `${maker}, model ${printable(t.model ?? '(none)')}, version ${printable(t.version ?? '(none)')}`);
  line('TPM spec', ek.spec ? `family ${printable(ek.spec.family)}, level ${ek.spec.level}, revision ${ek.spec.revision}` : '(none)');
  line('assertions', ek.assertions ? assertionsText(ek.assertions) : '(none)');
  line('serial', ek.cert.serial);
  line('issuer', printable(nameText(ek.cert.issuer)) || '(empty)');
  line('subject', printable(nameText(ek.cert.subject)) || '(empty)');
  line('valid', `${day(ek.cert.notBefore)} to ${day(ek.cert.notAfter)}: ${VALIDITY_WORDS[validityAt(ek.cert, at)]} on ${day(at)}`);
  line('signature', signatureAlgorithmName(ek.cert));
  chainLines(chain, at, EK_CERTIFICATE, line, out);
  out.push('', 'Admission checks the EK hash against the binding; a verified chain says who made the TPM and approves nothing.', '');
  return out.join('\n');
}

function storedText(ek: EkCertificate): string {
  const s = ek.stored;
  const form = s.encoding === 'pem' ? 'PEM' : s.tcgHeader ? 'DER after the 7-byte TCG NV header' : 'DER';
  return s.trailingBytes ? `${form}, then ${s.trailingBytes} bytes of padding that are not part of it` : form;
}

const GENERATION = {
  internal: 'made in the TPM',
  injected: 'injected',
  'internal-revocable': 'made in the TPM, revocable',
  'injected-revocable': 'injected, revocable',
};
const LOCATION = {
  'tpm-manufacturer': 'the TPM manufacturer',
  'platform-manufacturer': 'the platform manufacturer',
  'ek-cert-signer': 'the EK certificate signer',
};
const STATUS = { 'designed-to-meet': 'designed to meet', 'evaluation-in-progress': 'evaluation in progress', 'evaluation-completed': 'evaluation completed' };

function assertionsText(a: SecurityAssertions): string {
  const parts = [`version ${a.version}`, a.fieldUpgradeable ? 'field upgradeable' : 'not field upgradeable'];
  if (a.ekGenerationType) parts.push(`EK ${GENERATION[a.ekGenerationType]}`);
  if (a.ekGenerationLocation) parts.push(`EK made by ${LOCATION[a.ekGenerationLocation]}`);
  if (a.ekCertificateGenerationLocation) parts.push(`certificate made by ${LOCATION[a.ekCertificateGenerationLocation]}`);
  if (a.commonCriteria) {
    const cc = a.commonCriteria;
    parts.push(`Common Criteria ${printable(cc.version)} EAL${cc.assuranceLevel}${cc.plus ? '+' : ''}, ${STATUS[cc.evaluationStatus]}`);
  }
  if (a.fips) parts.push(`FIPS ${printable(a.fips.version)} level ${a.fips.level}${a.fips.plus ? '+' : ''}`);
  if (a.iso9000Certified) parts.push(`ISO 9000 certified${a.iso9000Uri ? ` (${printable(a.iso9000Uri)})` : ''}`);
  return parts.join('; ');
}

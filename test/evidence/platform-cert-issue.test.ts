import { describe, expect, it } from 'vitest';
import { parseX509 } from '../../shared/ek-cert/certificate.js';
import { type CaCertificate, verifyChain } from '../../shared/ek-cert/chain.js';
import { parseEkCertificate } from '../../shared/ek-cert/ek-certificate.js';
import { unwrapStored } from '../../shared/ek-cert/stored.js';
import { platformChecks } from '../../shared/platform-cert/checks.js';
import { parsePlatformCertificate } from '../../shared/platform-cert/platform-certificate.js';
import { issuePlatformCertificate, makeTestCa } from '../platform-cert-issuer.js';
import { tcgCert } from './tcg-certs.js';

/** The platform certificates the test CA issues, and the checks fleet attest approve can make of them. */
describe('a platform certificate issued for an EK certificate', () => {
  const ca = makeTestCa();
  const roots: CaCertificate[] = [{ cert: parseX509(ca.der), source: 'test-ca.pem' }];
  const ekDer = unwrapStored(tcgCert('certificates/nuc-2/tpmcert.pem')).der;
  const ek = parseEkCertificate(ekDer).cert;
  const der = issuePlatformCertificate(ca, ekDer, { platformSerial: 'SYS-0001', chassisSerial: 'CH-0001', baseboardSerial: 'BB-0001' });
  const pc = parsePlatformCertificate(der);
  const checks = (claimed: string, pool = roots, cert = pc) =>
    Object.fromEntries(platformChecks(cert, ek, claimed, verifyChain(cert.cert, pool)).map((c) => [c.check, c.passed ? 'passed' : c.reason]));

  it('reads back as a base platform certificate of the profile, holding the EK certificate', () => {
    expect([pc.credentialType, pc.kind, pc.credentialTypeOid]).toEqual(['TCG Trusted Platform Endorsement', 'base', '2.23.133.8.2']);
    expect(pc.platform).toMatchObject({ serial: 'SYS-0001', chassisSerial: 'CH-0001', baseboardSerial: 'BB-0001' });
    expect(pc.cert.holder.serial).toBe(ek.serial);
  });

  it('passes every check for the machine that reports any of its serials', () => {
    for (const serial of ['SYS-0001', 'CH-0001', 'BB-0001', ' BB-0001 '])
      expect(checks(serial)).toEqual({ holder: 'passed', serial: 'passed', chain: 'passed' });
  });

  it('fails the serial check for another machine, exactly (case counts)', () => {
    expect(checks('SYS-0002').serial).toBe('serial-differs');
    expect(checks('sys-0001').serial).toBe('serial-differs');
  });

  it('fails the holder check for another TPM', () => {
    const other = parseEkCertificate(tcgCert('certificates/ab21ccf2-tpmcert.pem')).cert;
    expect(platformChecks(pc, other, 'SYS-0001', null)[0]).toMatchObject({ passed: false, reason: 'holder-serial-differs' });
  });

  it('fails the chain under another CA of the same name, and with a changed byte in what it signs', () => {
    const impostor = makeTestCa();
    expect(checks('SYS-0001', [{ cert: parseX509(impostor.der), source: 'impostor.pem' }]).chain).toBe('signature-fails');
    const tampered = der.slice();
    const at = Buffer.from(tampered).indexOf('SYS-0001');
    tampered[at] = 'T'.charCodeAt(0);
    const changed = parsePlatformCertificate(tampered);
    expect(changed.platform.serial).toBe('TYS-0001');
    expect(checks('TYS-0001', roots, changed)).toEqual({ holder: 'passed', serial: 'passed', chain: 'signature-fails' });
  });

  it('names no chassis or baseboard serial when not given them', () => {
    const plain = parsePlatformCertificate(issuePlatformCertificate(ca, ekDer, { platformSerial: 'SYS-0003' }));
    expect(plain.platform).toMatchObject({ serial: 'SYS-0003', chassisSerial: null, baseboardSerial: null });
    expect(plain.configuration).toBeNull();
  });
});

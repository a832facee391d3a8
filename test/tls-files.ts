/**
 * TLS certificates for tests, the bench and the demo, made with openssl (EC P-256 keys, PEM files):
 * a self-signed certificate, which is its own CA (what a client pins), and a certificate a private
 * CA issues. Each is written to the two paths it is given, which it returns.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where a certificate and its key are. */
export interface TlsFiles {
  cert: string;
  key: string;
}

export interface CertificateSpec {
  /** As openssl's -subj takes it: `/CN=fleetd`. */
  subject: string;
  /** The subjectAltName's IP addresses and DNS names. */
  ips?: string[];
  dns?: string[];
  /** Valid from now for this many days (1 unless said). */
  days?: number;
}

/** `dir/<stem>.crt` and `dir/<stem>.key`. */
export function tlsFiles(dir: string, stem = 'tls'): TlsFiles {
  return { cert: join(dir, `${stem}.crt`), key: join(dir, `${stem}.key`) };
}

/** The certificate and key as PEM text. */
export function readPem(files: TlsFiles): TlsFiles {
  return { cert: readFileSync(files.cert, 'utf8'), key: readFileSync(files.key, 'utf8') };
}

const NEW_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];

const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });

function altNames(spec: CertificateSpec): string[] {
  const names = [...(spec.ips ?? []).map((ip) => `IP:${ip}`), ...(spec.dns ?? []).map((d) => `DNS:${d}`)];
  return names.length ? [`subjectAltName=${names.join(',')}`] : [];
}

/** A self-signed certificate: a CA of its own, and a server's certificate too when it has names. */
export function selfSigned(at: TlsFiles, spec: CertificateSpec): TlsFiles {
  const extensions = ['basicConstraints=critical,CA:TRUE', ...altNames(spec)];
  openssl([
    'req',
    '-x509',
    ...NEW_KEY,
    '-keyout',
    at.key,
    '-out',
    at.cert,
    '-days',
    String(spec.days ?? 1),
    '-subj',
    spec.subject,
    ...extensions.flatMap((e) => ['-addext', e]),
  ]);
  return at;
}

/** A leaf certificate `ca` signs, for a server (the default) or a client. */
export function issued(at: TlsFiles, ca: TlsFiles, spec: CertificateSpec & { usage?: 'serverAuth' | 'clientAuth' }): TlsFiles {
  const csr = `${at.cert}.csr`;
  const ext = `${at.cert}.ext`;
  writeFileSync(
    ext,
    ['basicConstraints=critical,CA:FALSE', 'keyUsage=critical,digitalSignature', `extendedKeyUsage=${spec.usage ?? 'serverAuth'}`, ...altNames(spec), ''].join(
      '\n',
    ),
  );
  openssl(['req', '-new', ...NEW_KEY, '-keyout', at.key, '-out', csr, '-subj', spec.subject]);
  openssl(['x509', '-req', '-in', csr, '-CA', ca.cert, '-CAkey', ca.key, '-CAcreateserial', '-out', at.cert, '-days', String(spec.days ?? 1), '-extfile', ext]);
  return at;
}

import { X509Certificate } from 'node:crypto';
import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import { createSecureContext, type Server } from 'node:tls';
import { errorMessage } from '../../shared/errors.js';

export interface TlsFiles {
  certPath: string;
  keyPath: string;
}

/** Reads and checks a certificate and key pair; throws when they do not make a usable TLS context. */
export function loadTls(files: TlsFiles): { cert: Buffer; key: Buffer; notAfter: Date } {
  const cert = readFileSync(files.certPath);
  const key = readFileSync(files.keyPath);
  createSecureContext({ cert, key }); // refuses a key that does not match, or garbage
  return { cert, key, notAfter: new Date(new X509Certificate(cert).validTo) };
}

/**
 * Reloads the enrollment name's certificate and key when their files change (an ACME renewal
 * replaces them): new connections get the new pair, without a restart. A pair that does not load
 * (half-written, mismatched) is reported and the old one kept.
 */
export function watchTls(
  server: Server,
  files: TlsFiles,
  onLoaded: (notAfter: Date) => void,
  onError: (message: string) => void,
  intervalMs = 5000,
): () => void {
  const reload = () => {
    try {
      const { cert, key, notAfter } = loadTls(files);
      server.setSecureContext({ cert, key });
      onLoaded(notAfter);
    } catch (err) {
      onError(`the certificate or key in ${files.certPath} / ${files.keyPath} did not load; keeping the old pair: ${errorMessage(err)}`);
    }
  };
  watchFile(files.certPath, { interval: intervalMs }, reload);
  watchFile(files.keyPath, { interval: intervalMs }, reload);
  return () => {
    unwatchFile(files.certPath, reload);
    unwatchFile(files.keyPath, reload);
  };
}

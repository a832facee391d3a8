import { createHash, randomBytes } from 'node:crypto';

/** A new install code: 256 random bits, base64url (43 characters). */
export function newInstallCode(): string {
  return randomBytes(32).toString('base64url');
}

/** What is kept of a code once it is answered: its SHA-256, hex. */
export function installCodeHash(code: string): string {
  return createHash('sha256').update(code, 'utf8').digest('hex');
}

import type { Dirent } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ErrorCode } from '../error-codes.js';
import { errorMessage, FleetError } from '../errors.js';
import { parseX509 } from './certificate.js';
import type { CaCertificate } from './chain.js';
import { isPem, pemCertificates } from './pem.js';

/** The codes of a roots directory that cannot be read, and of one that holds what is no CA certificate: each command's own. */
export interface RootsCodes {
  unreadable: ErrorCode;
  invalid: ErrorCode;
}

const EK_ROOTS = { unreadable: 'ek-roots-unreadable', invalid: 'ek-roots-invalid' } as const satisfies RootsCodes;

/**
 * The CA certificates in a directory (roots and intermediates alike, PEM, several to a file, or
 * DER; not its subdirectories or dot files), in the order of the file names. A file that is no
 * certificate is refused by name rather than skipped: a trust directory should hold nothing else.
 */
export async function readCaDirectory(dir: string, codes: RootsCodes = EK_ROOTS): Promise<CaCertificate[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    throw new FleetError(codes.unreadable, `cannot read the roots directory: ${errorMessage(err)}`);
  }
  const names = entries
    .filter((e) => e.isFile() && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort();
  const out: CaCertificate[] = [];
  for (const name of names) {
    let bytes: Buffer;
    try {
      bytes = await readFile(join(dir, name));
    } catch (err) {
      throw new FleetError(codes.unreadable, `cannot read ${name} in the roots directory: ${errorMessage(err)}`);
    }
    try {
      const ders = isPem(bytes) ? pemCertificates(bytes) : [new Uint8Array(bytes)];
      ders.forEach((der, i) => void out.push({ cert: parseX509(der), source: ders.length > 1 ? `${name}#${i + 1}` : name }));
    } catch (err) {
      if (!(err instanceof FleetError)) throw err;
      throw new FleetError(codes.invalid, `${name} in the roots directory is not a certificate: ${errorMessage(err)}`);
    }
  }
  if (out.length === 0) throw new FleetError(codes.invalid, 'the roots directory holds no certificate');
  return out;
}

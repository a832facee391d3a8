import { createHash } from 'node:crypto';
import { FleetError } from '../errors.js';
import { readPeHeaders } from './headers.js';

/**
 * The Authenticode digest of a PE/COFF image: what UEFI firmware measures into PCR 4 when it loads
 * a boot application (EV_EFI_BOOT_SERVICES_APPLICATION), and so what a class's `hookos_images`
 * lists. The image is hashed as the PE/COFF specification's "Calculating the PE Image Hash" says
 * and EDK II's measurement does: the headers without the checksum and the certificate table's
 * directory entry, each section's raw data in file order, then what follows the sections, less
 * the certificate table (a signature does not change the digest).
 */
export function authenticodeDigest(image: Uint8Array, algorithm = 'sha256'): string {
  const bytes = Buffer.from(image.buffer, image.byteOffset, image.byteLength);
  const h = readPeHeaders(bytes);
  const hash = createHash(algorithm);
  const take = (from: number, to: number) => {
    if (from > to || to > bytes.length) throw new FleetError('pe-malformed', `not a PE/COFF image: a range ${from}..${to} runs past its end`);
    hash.update(bytes.subarray(from, to));
  };
  take(0, h.checksum);
  if (h.certEntry === null) take(h.checksum + 4, h.headersEnd);
  else {
    take(h.checksum + 4, h.certEntry);
    take(h.certEntry + 8, h.headersEnd);
  }
  let hashed = h.headersEnd;
  for (const s of h.sections.filter((s) => s.size > 0).sort((a, b) => a.at - b.at)) {
    take(s.at, s.at + s.size);
    hashed += s.size;
  }
  if (bytes.length > hashed + h.certSize) take(hashed, bytes.length - h.certSize);
  return hash.digest('hex');
}

import type { CaCertificate } from '../ek-cert/chain.js';
import { readCaDirectory, type RootsCodes } from '../ek-cert/roots.js';

const PLATFORM_ROOTS = { unreadable: 'platform-roots-unreadable', invalid: 'platform-roots-invalid' } as const satisfies RootsCodes;

/** The CA certificates a platform certificate's signature is checked up to, read as the EK roots are, with their own codes. */
export function readPlatformRoots(dir: string): Promise<CaCertificate[]> {
  return readCaDirectory(dir, PLATFORM_ROOTS);
}

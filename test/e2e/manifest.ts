/**
 * What the run's one-time preparation (global-setup.ts) hands every e2e test file: the guest's
 * parts, the bundles' share, the TLS pair the verifiers serve, and the two TPM templates.
 */
import { inject } from 'vitest';
import type { InstalledImage } from './parts/installed-image.js';
import type { SignedLoaders } from './secure-boot-esp.js';

export interface TpmTemplate {
  /** swtpm state to copy per VM (never run swtpm on it). */
  stateDir: string;
  ekHashRsa: string;
  ekHashEcc: string;
}

export interface E2eRun {
  /** Why the suite cannot run here, or null. */
  skip: string | null;
  /** The host's docker-registry, as the guests name it (10.0.2.2:<port>), and the images it holds: the installers, and the tools image the Templates' actions run in. */
  registry: { port: number; installer: string; brokenInstaller: string; tools: string };
  vmlinuz: string;
  initrd: string;
  /** busybox-static (its nc relays the guest's TCP connections to the host). */
  busybox: string;
  /** Debian's signed shim and GRUB, for machines booted through Secure Boot. */
  signedLoaders: SignedLoaders;
  /** The disk image a disk-image provision installs: a UKI on its ESP whose first boot fetches the seed (parts/installed-image.ts). */
  installedImage: InstalledImage;
  /** Read-only to the guest as /run/fleet: agent.mjs + cap.node, actions/, lib.sh, tls.crt. */
  fleetShare: string;
  /** Where per-VM dirs go; removed at the end of the run. */
  runDir: string;
  tlsCert: string;
  tlsKey: string;
  /** 'a' is the machine the inventory approves; 'b' is another TPM. */
  tpm: { a: TpmTemplate; b: TpmTemplate };
}

declare module 'vitest' {
  export interface ProvidedContext {
    e2e: E2eRun;
  }
}

export const e2eRun = (): E2eRun => inject('e2e');

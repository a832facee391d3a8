/**
 * Once per e2e run: the guest's kernel and initramfs, and the signed shim and GRUB a Secure Boot
 * machine boots through (all cached across runs), the bundles the guest
 * runs (built fresh, so a code change needs no initramfs rebuild), the verifiers' TLS pair, and
 * two TPM templates with RSA-2048 and P-256 EKs and certificates.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { buildActions } from '../../images/tink-reprovision-tools/build.js';
import { buildAgent } from '../../scripts/build.js';
import { ekHashOfCertificate } from '../../shared/ek-cert/ek-certificate.js';
import { DockerEngine } from '../docker/engine.js';
import { pushInstallerImages, type InstallerImages } from '../docker/installer-image.js';
import { Registry } from '../docker/registry.js';
import { pushToolsImage } from '../docker/tools-image.js';
import { provisionTpm, type ProvisionedTpm } from '../swtpm/provision.js';
import { selfSigned } from '../tls-files.js';
import { missingHostTools } from './host-tools.js';
import type { E2eRun, TpmTemplate } from './manifest.js';
import { withCacheLock } from './parts/cache-lock.js';
import { prepareInitramfs } from './parts/initramfs.js';
import { prepareInstalledImage } from './parts/installed-image.js';
import { prepareKernel } from './parts/kernel.js';
import { prepareSignedLoaders } from './secure-boot-esp.js';

const CACHE = join(tmpdir(), 'fleet-e2e-cache');
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

const template = (t: ProvisionedTpm): TpmTemplate => ({
  stateDir: t.stateDir,
  ekHashRsa: ekHashOfCertificate(t.ekCertRsaDer),
  ekHashEcc: ekHashOfCertificate(t.ekCertEccDer),
});

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const skip = missingHostTools();
  const runDir = mkdtempSync(join(tmpdir(), 'fleet-e2e-run-'));
  const stops: Array<() => Promise<void>> = [];
  const teardown = async () => {
    for (const stop of stops) await stop();
    rmSync(runDir, { recursive: true, force: true });
  };
  if (skip) {
    console.warn(`e2e: skipped: ${skip}`);
    project.provide('e2e', { skip } as E2eRun);
    return teardown;
  }
  const started = Date.now();
  mkdirSync(CACHE, { recursive: true });
  const { kernel, initrd, signedLoaders, installedImage } = await withCacheLock(CACHE, () => {
    const kernel = prepareKernel(CACHE);
    return {
      kernel,
      initrd: prepareInitramfs(kernel, join(CACHE, kernel.pkg)),
      signedLoaders: prepareSignedLoaders(join(CACHE, 'secure-boot')),
      installedImage: prepareInstalledImage(join(CACHE, 'installed-image'), kernel),
    };
  });

  const fleetShare = join(runDir, 'fleet');
  await buildAgent(fleetShare);
  await buildActions(join(fleetShare, 'actions'));
  for (const f of ['lib.sh', 'tink-agent.mjs']) copyFileSync(here(`guest/${f}`), join(fleetShare, f));

  // The verifier as the guest reaches it: https://10.0.2.100 (guestfwd); the guest trusts this cert.
  const tlsCert = join(fleetShare, 'tls.crt');
  const tlsKey = join(runDir, 'tls.key');
  selfSigned({ cert: tlsCert, key: tlsKey }, { subject: '/CN=fleetd', ips: ['10.0.2.100'], days: 2 });

  // The registry HookOS pulls from, on the host for the whole run (the guests reach it at
  // 10.0.2.2), holding the installer images and the tools image the Templates' actions run in;
  // the engine that built them is not needed after.
  const registry = await Registry.start();
  stops.push(() => registry.stop());
  const engine = await DockerEngine.start();
  const tools = `${registry.host}/lolwtf/tink-reprovision-tools:0.1.0`;
  let installers: InstallerImages;
  try {
    installers = await pushInstallerImages(engine, `${registry.host}/talos/installer`, { loader: installedImage.uki });
    await pushToolsImage(engine, tools, join(fleetShare, 'actions'), tlsCert);
  } finally {
    await engine.stop();
  }
  const inGuest = (image: string) => image.replace(registry.host, `10.0.2.2:${registry.port}`);

  const caDir = join(runDir, 'tpm-ca');
  const a = await provisionTpm(join(runDir, 'tpm-a'), { caDir });
  const b = await provisionTpm(join(runDir, 'tpm-b'), { caDir });
  project.provide('e2e', {
    skip: null,
    registry: { port: registry.port, installer: inGuest(installers.good), brokenInstaller: inGuest(installers.broken), tools: inGuest(tools) },
    vmlinuz: kernel.vmlinuz,
    initrd,
    busybox: kernel.busybox,
    signedLoaders,
    installedImage,
    fleetShare,
    runDir,
    tlsCert,
    tlsKey,
    tpm: { a: template(a), b: template(b) },
  });
  console.warn(`e2e: prepared in ${((Date.now() - started) / 1000).toFixed(1)} s (kernel ${kernel.pkg}, cache ${CACHE})`);
  return teardown;
}

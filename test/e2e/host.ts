/**
 * The lab around an e2e machine, all on this machine's loopback: fleetd, an SNTP server, an HTTP
 * server for images (optional), and the switch port's LLDP (a frame, or silence).
 */
import { createHash } from 'node:crypto';
import { SntpServer } from '../agent/sntp-server.js';
import { Files } from '../actions/http.js';
import { frameOf } from '../lldp/fixtures.js';
import { nodeEntry as labNodeEntry } from '../node-entry.js';
import { startLldpInjector, type LldpInjector } from './lldp-injector.js';
import { GUEST_FILES_URL, type HostServices, type Machine } from './machine.js';
import type { E2eRun, TpmTemplate } from './manifest.js';
import { startVerifier, type Verifier } from './verifier.js';

/** lldpd's recorded capture of a Cisco SG200 port: chassis 00:35:35:35:35:35, port g1. */
export const SWITCH_FRAME = frameOf('sg200.pcap');
export const SWITCH_PORT = 'g1';

export interface Host {
  verifier: Verifier;
  files: Files;
  /** The switch's frames on the boot NIC, or null for a port whose switch sends none. */
  lldp: LldpInjector | null;
  services: HostServices;
  close(): Promise<void>;
}

export async function startHost(
  run: E2eRun,
  dir: string,
  opts: {
    nodes: Record<string, Record<string, unknown>>;
    classes?: Record<string, unknown>;
    files?: Record<string, Buffer>;
    lldp: boolean;
    serveArgs?: string[];
  },
): Promise<Host> {
  const verifier = await startVerifier(run, dir, opts.nodes, opts.classes, opts.serveArgs);
  const ntp = await SntpServer.start(0);
  const files = await new Files().start();
  for (const [path, body] of Object.entries(opts.files ?? {})) files.served.set(path, body);
  const lldp = opts.lldp ? await startLldpInjector(SWITCH_FRAME) : null;
  return {
    verifier,
    files,
    lldp,
    services: { verifierPort: verifier.port, ntpPort: ntp.port, filesPort: Number(new URL(files.url('/')).port), ...(lldp ? { frames: lldp.ports } : {}) },
    async close() {
      lldp?.close();
      await Promise.all([verifier.close(), ntp.close(), files.stop()]);
    },
  };
}

/** A node's entry in the lab's nodes file; `tpm` approves that TPM's two EKs. */
export function nodeEntry(serial: string, diskSerial: string, className: string, tpm?: TpmTemplate): Record<string, unknown> {
  return labNodeEntry({
    serial,
    class: className,
    switch_port: SWITCH_PORT,
    disk_serial: diskSerial,
    ...(tpm ? { approved_ek_rsa2048: tpm.ekHashRsa, approved_ek_eccp256: tpm.ekHashEcc } : {}),
  });
}

const PLACEHOLDER_PATH = '/images/placeholder.raw';
/** Where the placeholder image is served: what a boot's IMAGE_URL names. */
export const PLACEHOLDER_URL = `${GUEST_FILES_URL}${PLACEHOLDER_PATH}`;

/**
 * A host whose one node, `name`, is machine `m` on the disk `diskSerial` (`tpm`'s EKs approved when
 * given), of a disk-image class whose image the host serves at PLACEHOLDER_URL: for scenarios where
 * every run must be refused before the image matters, so it only has to answer. `classFields` adds
 * to its class (a measured-boot policy).
 */
export function startPlaceholderHost(
  run: E2eRun,
  m: Pick<Machine, 'dir' | 'serial'>,
  node: { name: string; diskSerial: string; tpm?: TpmTemplate },
  lldp: boolean,
  classFields: Record<string, unknown> = {},
): Promise<Host> {
  const body = Buffer.alloc(1 << 20, 0x5a);
  return startHost(run, m.dir, {
    nodes: { [node.name]: nodeEntry(m.serial, node.diskSerial, 'nixos', node.tpm) },
    classes: { nixos: { payload: 'nixos-image', image_url: PLACEHOLDER_URL, image_sha256: createHash('sha256').update(body).digest('hex'), ...classFields } },
    files: { [PLACEHOLDER_PATH]: body },
    lldp,
  });
}
